import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem } from './hostile-document-system';

/**
 * CONTRACT.md, fair share: one file's download ends by a deadline that grows with its listed size (grace +
 * listed size at DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND, at most MAX_FILE_SECONDS); past it the file is Failed
 * with the reason and the run goes on.
 */
describe('The download deadline', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());
  /** Seconds each file's downloads may take: 1 s of grace + its listed size at 1,000 bytes/s, at most 3 s. */
  const deadlines: Record<string, number> = { endless: 2, huge: 3, slow: 3 };

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([
      {
        id: 'ok',
        name: 'Ok',
        files: [{ id: 'ok', name: 'ok.txt', listedSize: 4, content: { kind: 'bytes', body: Buffer.from('fine') } }],
      },
      {
        // Keeps well ahead of the minimum rate, but never ends: its listed size says 1,000 bytes.
        id: 'endless-folder',
        name: 'Endless',
        files: [
          {
            id: 'endless',
            name: 'endless.bin',
            listedSize: 1000,
            content: { kind: 'paced', chunk: 200, bytes: Infinity },
          },
        ],
      },
      {
        // Its listed size would allow 101 s; MAX_FILE_SECONDS allows 3.
        id: 'huge-folder',
        name: 'Huge',
        files: [
          {
            id: 'huge',
            name: 'huge.bin',
            listedSize: 100_000,
            content: { kind: 'paced', chunk: 200, bytes: Infinity },
          },
        ],
      },
      {
        // 500 bytes/s, half the minimum rate: falls behind before its size's deadline.
        id: 'slow-folder',
        name: 'Slow',
        files: [{ id: 'slow', name: 'slow.txt', listedSize: 3000, content: { kind: 'paced', chunk: 50, bytes: 3000 } }],
      },
    ]).start();
    sut = await startConnectorApp({
      env: { DOCUMENT_SYSTEM_DEADLINE_MS: 1000, DOCUMENT_SYSTEM_MIN_BYTES_PER_SECOND: 1000, MAX_FILE_SECONDS: 3 },
      overrides: [[ConnectionTokens, connections]],
    });
    caller = await testCaller({ roles: ['admin'] });
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  it('fails each file past its deadline with the reason, and the run goes on', async () => {
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, [
      'ok',
      'endless-folder',
      'huge-folder',
      'slow-folder',
    ]);
    const run = await syncToEnd(sut.app, caller, dataSourceId, 60_000);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 4, added: 1, failed: 3 } });

    const failed = (
      await http().get(`/v1/sync-runs/${run.id}/files`).query({ outcome: 'Failed' }).set(caller.auth).expect(200)
    ).body.items as Array<{ name: string; reason: string }>;
    expect(Object.fromEntries(failed.map((f) => [f.name, f.reason]))).toEqual({
      'endless.bin': 'The download did not end by its deadline of 2 s (1000 listed bytes at 1000 bytes/s)',
      'huge.bin': 'The download did not end by its deadline of 3 s (MAX_FILE_SECONDS)',
      'slow.txt': 'The download fell behind the minimum rate of 1000 bytes/s after its grace period',
    });
    // Every attempt at each file ended by its deadline (and a little for the round trip).
    for (const download of hostile.downloads.filter((d) => d.fileId in deadlines)) {
      expect(download.endedAt).toBeDefined();
      expect(download.endedAt! - download.startedAt).toBeLessThan(deadlines[download.fileId] * 1000 + 1000);
    }
  }, 70_000);
});
