import { appUnderTest, openApiDocument, unsummarizedOperations } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('document-system simulator OpenAPI document', () => {
  const app = appUnderTest(() => AppModule.forRoot({ env: { LOG_LEVEL: 'silent' } }), 'Document-system simulator');

  it('says in a summary what every operation is for', async () => {
    const spec = await openApiDocument(app());
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/v1/session', '/api/v1/workgroups', '/admin/reset', '/admin/oauth/clients']),
    );
    expect(unsummarizedOperations(spec)).toEqual([]);
  });
});
