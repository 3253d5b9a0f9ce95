import { openApiDocument, undocumentedResponses, unsummarizedOperations } from '@app/testing';
import { approvalAppUnderTest } from './support/approval-app';

describe('approval-service OpenAPI document', () => {
  const app = approvalAppUnderTest();

  it('declares, for every operation, the body of its success and of its errors', async () => {
    const spec = await openApiDocument(app());
    expect(Object.keys(spec.paths).length).toBeGreaterThan(4);
    expect(undocumentedResponses(spec)).toEqual([]);
  });

  it('says in a summary what every operation is for', async () => {
    expect(unsummarizedOperations(await openApiDocument(app()))).toEqual([]);
  });

  it('shows an approval with its log, and the error body', async () => {
    const { schemas } = (await openApiDocument(app())).components;
    expect(schemas.ApprovalResponse).toMatchObject({
      properties: { log: { items: { $ref: '#/components/schemas/ApprovalLogEntryResponse' } } },
    });
    expect(schemas.ApprovalListItemResponse).toMatchObject({
      required: expect.arrayContaining(['logTruncated', 'status']),
    });
    expect(schemas.ErrorResponse).toMatchObject({ required: expect.arrayContaining(['code', 'message', 'details']) });
  });
});
