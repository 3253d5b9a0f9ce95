import request from 'supertest';
import type { INestApplication } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { eventually, TestCaller } from '@app/testing';

export interface SyncRunView {
  id: string;
  mode: 'Full' | 'Incremental';
  status: string;
  counts: {
    discovered: number;
    added: number;
    updated: number;
    unchanged: number;
    deleted: number;
    failed: number;
    skipped: number;
  };
  bytesDownloaded: number;
  error: string | null;
  deletionsHeld?: number;
}

/** Starts a sync and waits until the run has ended. */
export async function syncToEnd(
  app: INestApplication,
  caller: TestCaller,
  dataSourceId: string,
  timeoutMs = 60000,
): Promise<SyncRunView> {
  const started = await request(app.getHttpServer())
    .post(`/v1/data-sources/${dataSourceId}/sync`)
    .set(caller.auth)
    .expect(202);
  return waitForRun(app, caller, started.body.syncRunId, timeoutMs);
}

export async function waitForRun(
  app: INestApplication,
  caller: TestCaller,
  syncRunId: string,
  timeoutMs = 60000,
): Promise<SyncRunView> {
  return eventually(
    async () => {
      const run = (await request(app.getHttpServer()).get(`/v1/sync-runs/${syncRunId}`).set(caller.auth).expect(200))
        .body as SyncRunView;
      return !['Queued', 'Running'].includes(run.status) && run;
    },
    timeoutMs,
    100,
  );
}

/** Waits until every document of the data source has its text extracted (none `Pending`): search sees their text. */
export async function waitForExtraction(
  app: INestApplication,
  caller: TestCaller,
  dataSourceId: string,
  timeoutMs = 60000,
): Promise<void> {
  await eventually(
    async () =>
      (await request(app.getHttpServer()).get(`/v1/data-sources/${dataSourceId}`).set(caller.auth).expect(200)).body
        .pendingExtractions === 0,
    timeoutMs,
    100,
  );
}

/** Starts a sync, waits until the run has ended and then until its documents' text is searchable. */
export async function syncToSearchable(
  app: INestApplication,
  caller: TestCaller,
  dataSourceId: string,
  timeoutMs = 60000,
): Promise<SyncRunView> {
  const run = await syncToEnd(app, caller, dataSourceId, timeoutMs);
  await waitForExtraction(app, caller, dataSourceId, timeoutMs);
  return run;
}

/** A data source's ingested rows: its documents, their chunks and its tree's folders (0 once all are removed). */
export async function ingestedRows(db: DataSource, dataSourceId: string): Promise<number> {
  const [{ n }] = await db.query(
    `SELECT (SELECT count(*) FROM connector.documents WHERE "dataSourceId" = $1)
          + (SELECT count(*) FROM connector.document_chunks WHERE "dataSourceId" = $1)
          + (SELECT count(*) FROM connector.synced_folders WHERE "dataSourceId" = $1) AS n`,
    [dataSourceId],
  );
  return Number(n);
}
