import request from 'supertest';
import { appUnderTest, openApiDocument, testEnv } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('connector-service health and docs', () => {
  const app = appUnderTest(() => AppModule.forRoot({ role: 'all', env: testEnv() }), 'Connector service');

  it('is live and ready with PostgreSQL and Redis up', async () => {
    await request(app().getHttpServer()).get('/health/live').expect(200);
    const ready = await request(app().getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('serves the OpenAPI document at /docs', async () => {
    await request(app().getHttpServer()).get('/docs').expect(200);
    expect((await openApiDocument(app())).info.title).toBe('Connector service');
  });
});
