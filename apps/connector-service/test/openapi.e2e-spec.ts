import { appUnderTest, openApiDocument, testEnv, undocumentedResponses, unsummarizedOperations } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('connector-service OpenAPI document', () => {
  const app = appUnderTest(() => AppModule.forRoot({ role: 'all', env: testEnv() }), 'Connector service');

  it('declares, for every operation, the body of its success and of its errors', async () => {
    const spec = await openApiDocument(app());
    expect(Object.keys(spec.paths).length).toBeGreaterThan(20);
    expect(undocumentedResponses(spec)).toEqual([]);
  });

  it('says in a summary what every operation is for', async () => {
    expect(unsummarizedOperations(await openApiDocument(app()))).toEqual([]);
  });

  it('shows the views with their fields, the error body among them', async () => {
    const { schemas } = (await openApiDocument(app())).components;
    const fields = (name: string) => Object.keys((schemas[name] as { properties: object }).properties);
    expect(fields('SearchHitResponse')).toEqual(
      expect.arrayContaining(['documentId', 'mimeType', 'snippet', 'textUrl', 'contentUrl']),
    );
    expect(schemas.DataSourceDetailResponse).toMatchObject({
      required: expect.arrayContaining(['pendingExtractions', 'id']),
    });
    expect(schemas.ErrorResponse).toMatchObject({
      required: expect.arrayContaining(['statusCode', 'error', 'code', 'message', 'details']),
    });
  });
});
