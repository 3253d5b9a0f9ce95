import { Client } from 'pg';
import request from 'supertest';
import { hasMetric, metricValue, testCaller } from '@app/testing';
import { DocumentsRepository } from '../src/documents/documents.repository';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * /metrics (here opened with METRICS_PUBLIC) counts the extraction backlog in connector.documents on the API's own
 * pool. A lock taken by a migration (or a huge backlog) makes that count slow: a burst of scrapes must not
 * take the pool's connections from the API, and a scrape must still answer at once.
 */
describe('Metrics scrapes while connector.documents is slow to read', () => {
  let sut: ConnectorTestApp;
  let locker: Client;
  const http = () => request(sut.app.getHttpServer());

  beforeAll(async () => {
    sut = await startConnectorApp({ env: { METRICS_PUBLIC: true }, role: 'api' });
    locker = new Client({ connectionString: String(sut.env.DATABASE_URL) });
    await locker.connect();
  });
  afterEach(() => locker.query('ROLLBACK'));
  afterAll(async () => {
    await locker?.end();
    await sut?.close();
  });

  /** A lock stands for any reason the backlog count takes longer than a scrape waits for it. */
  async function lockDocuments(): Promise<void> {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE connector.documents IN ACCESS EXCLUSIVE MODE');
  }

  it('keeps the API and /health/ready answering through a burst of scrapes, each served at once with the last backlog count', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    await http().get('/v1/credentials').set(admin.auth).expect(200);
    const backlog = metricValue((await http().get('/metrics').expect(200)).text, 'extraction_backlog_documents');
    await lockDocuments();

    let started = Date.now();
    const scrapes = await Promise.all(Array.from({ length: 25 }, () => http().get('/metrics')));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(scrapes.map((s) => s.status)).toEqual(scrapes.map(() => 200));
    for (const { text } of scrapes) {
      expect(hasMetric(text, 'extraction_backlog_documents')).toBe(true);
      expect(metricValue(text, 'extraction_backlog_documents')).toBe(backlog);
    }

    started = Date.now();
    const res = await http()
      .get('/v1/credentials')
      .set(admin.auth)
      .timeout(15_000)
      .catch((e) => e);
    const tookMs = Date.now() - started;
    const ready = await http().get('/health/ready');
    expect({ status: res.status, slow: tookMs > 3000, ready: ready.status }).toEqual({
      status: 200,
      slow: false,
      ready: 200,
    });
  }, 40_000);

  it('cancels a backlog count in PostgreSQL at its statement timeout, so it cannot hold a connection for long', async () => {
    await lockDocuments();
    const started = Date.now();
    await expect(sut.app.get(DocumentsRepository).countAllPendingExtractions(300)).rejects.toThrow(/statement timeout/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
