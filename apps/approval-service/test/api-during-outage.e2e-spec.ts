import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { testCaller, OwnPostgres, startOwnPostgres } from '@app/testing';
import { ApprovalTestApp, startApprovalApp } from './support/approval-app';

describe('the API while PostgreSQL restarts', () => {
  let postgres: OwnPostgres;
  let sut: ApprovalTestApp;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    sut = await startApprovalApp({ DATABASE_URL: postgres.url }, 'api');
  }, 120_000);
  afterAll(async () => {
    await sut?.close();
    await postgres?.destroy();
  });

  it('answers 503 NOT_READY with Retry-After while the database is away, never 500, and 200 once it is back', async () => {
    const caller = await testCaller();
    const read = () => request(sut.app.getHttpServer()).get(`/v1/approvals/${randomUUID()}`).set(caller.auth);
    await read().expect(404);

    await postgres.stop();
    try {
      const res = await read();
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ statusCode: 503, code: 'NOT_READY' });
      expect(res.headers['retry-after']).toBe('5');
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminated/);
      // Readiness is public: it says what is down, not the driver's words (addresses, host and role names).
      const ready = await request(sut.app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.details[0].error.database).toEqual({ status: 'down' });
      expect(JSON.stringify(ready.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminated|connect|timeout/i);
    } finally {
      await postgres.start();
    }
    await read().expect(404);
  }, 90_000);
});
