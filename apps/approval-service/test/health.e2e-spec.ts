import request from 'supertest';
import { openApiDocument, testEnv } from '@app/testing';
import { approvalAppUnderTest } from './support/approval-app';

describe('approval-service health and docs', () => {
  const app = approvalAppUnderTest();

  it('is live and ready with PostgreSQL and Redis up', async () => {
    await request(app().getHttpServer()).get('/health/live').expect(200);
    const ready = await request(app().getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('serves the OpenAPI document at /docs', async () => {
    await request(app().getHttpServer()).get('/docs').expect(200);
    expect((await openApiDocument(app())).info.title).toBe('Approval service');
  });
});

describe('approval-service readiness with Redis down', () => {
  const app = approvalAppUnderTest('api', testEnv({ REDIS_URL: 'redis://127.0.0.1:1' }));

  it('answers 503 when Redis does not answer', async () => {
    const res = await request(app().getHttpServer()).get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'NOT_READY', message: expect.stringContaining('redis') });
    expect(res.body.details[0].error.redis.status).toBe('down');
  });
});
