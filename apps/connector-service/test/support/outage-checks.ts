import request from 'supertest';
import { eventually, TestCaller } from '@app/testing';
import type { ConnectorTestApp } from './connector-app';
import { SyncRunView } from './sync-helpers';

/** The run's view; undefined while the service cannot answer (an outage). */
export async function runNow(sut: ConnectorTestApp, caller: TestCaller, syncRunId: string) {
  const res = await request(sut.app.getHttpServer()).get(`/v1/sync-runs/${syncRunId}`).set(caller.auth);
  return res.status === 200 ? (res.body as SyncRunView) : undefined;
}

/** Waits until the run has added at least `files` documents; fails should it end before. */
export async function addedAtLeast(sut: ConnectorTestApp, caller: TestCaller, syncRunId: string, files: number) {
  await eventually(
    async () => {
      const run = await runNow(sut, caller, syncRunId);
      if (run && !['Queued', 'Running'].includes(run.status))
        throw new Error(`the run ended (${run.status}) before ${files} files: slow the document system down`);
      return run && run.counts.added >= files;
    },
    40_000,
    50,
  );
}

/** Waits for the run's end, then for its data source's text; the ended run (or the last seen, should it not end). */
export async function endedAndExtracted(
  sut: ConnectorTestApp,
  caller: TestCaller,
  syncRunId: string,
  dataSourceId: string,
  timeoutMs: number,
): Promise<SyncRunView | undefined> {
  const deadline = Date.now() + timeoutMs;
  const ended = await eventually(
    async () => {
      const run = await runNow(sut, caller, syncRunId);
      return run && !['Queued', 'Running'].includes(run.status) && run;
    },
    timeoutMs,
    100,
  ).catch(() => runNow(sut, caller, syncRunId));
  await eventually(
    async () => (await pendingExtractions(sut, dataSourceId)) === 0,
    Math.max(1000, deadline - Date.now()),
    100,
  ).catch(() => undefined);
  return ended;
}

async function pendingExtractions(sut: ConnectorTestApp, dataSourceId: string): Promise<number> {
  const [{ n }] = await sut.db.query(
    `SELECT count(*)::int AS n FROM connector.documents WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Pending'`,
    [dataSourceId],
  );
  return n;
}

/** What a user sees of the listed files: those without a document, or with two, and its documents' extraction statuses. */
export async function filesAsSeen(sut: ConnectorTestApp, dataSourceId: string, fileIds: string[]) {
  const docs: Array<{ externalId: string; status: string }> = await sut.db.query(
    `SELECT "externalId", "extractionStatus" AS status FROM connector.documents WHERE "dataSourceId" = $1`,
    [dataSourceId],
  );
  const perFile = new Map<string, number>();
  const statuses: Record<string, number> = {};
  for (const doc of docs) {
    perFile.set(doc.externalId, (perFile.get(doc.externalId) ?? 0) + 1);
    statuses[doc.status] = (statuses[doc.status] ?? 0) + 1;
  }
  return {
    missing: fileIds.filter((id) => !perFile.has(id)).length,
    doubled: [...perFile.values()].filter((n) => n > 1).length,
    unknown: [...perFile.keys()].filter((id) => !fileIds.includes(id)).length,
    statuses,
  };
}

/**
 * Minutes pass, as far as the sweeps' patience for lost work goes: the run's tasks and its data source's pending
 * extractions from before `since` look as old as a lost job's would when the sweeps look for them.
 */
export async function lostWorkLooksOld(sut: ConnectorTestApp, syncRunId: string, dataSourceId: string, since: Date) {
  await sut.db.query(
    `UPDATE connector.sync_tasks SET "createdAt" = "createdAt" - interval '10 minutes'
     WHERE "syncRunId" = $1 AND "createdAt" < $2`,
    [syncRunId, since],
  );
  await sut.db.query(
    `UPDATE connector.documents SET "updatedAt" = "updatedAt" - interval '10 minutes'
     WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Pending' AND "updatedAt" < $2`,
    [dataSourceId, since],
  );
}

/** `filesAsSeen` when each of `files` files is stored once and its text extracted. */
export const eachFileOnce = (files: number) => ({ missing: 0, doubled: 0, unknown: 0, statuses: { Succeeded: files } });

/** The counts of a Full run that ingested every one of `files` new files, and failed none. */
export const allAdded = (files: number) => ({
  discovered: files,
  added: files,
  updated: 0,
  unchanged: 0,
  deleted: 0,
  failed: 0,
  skipped: 0,
});
