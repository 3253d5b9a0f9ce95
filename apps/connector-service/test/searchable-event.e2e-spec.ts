import { getQueueToken } from '@nestjs/bull';
import Bull from 'bull';
import type { Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import { SharedQueue } from '@app/contracts/payloads';
import { Transactions } from '@app/database';
import { after, eventually, testCaller, TestCaller } from '@app/testing';
import { DocumentsRepository } from '../src/documents/documents.repository';
import { layOut } from '../src/extraction/text-layout';
import { INDEXING_QUEUE } from '../src/indexing/indexing.jobs';
import { IndexingService } from '../src/indexing/indexing.service';
import { SearchableAnnouncer } from '../src/searchable/searchable-announcer';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

/** Resolves for everyone once `parties` callers have arrived. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === parties) open();
    return opened;
  };
}

interface SeenEvent {
  type: string;
  syncRunId: string;
  data: Record<string, unknown>;
  /** The extraction status of every document of the data source when the agent runtime took the job. */
  statuses: string[];
}

/** DataSourceSearchable on `connector-events`: once per run, after the last text of its data source is saved. */
describe('DataSourceSearchable', () => {
  let events: Bull.Queue;
  const stack = connectorOnSimulator({ beforeClose: () => events?.close() });
  let user: TestCaller;
  let dataSourceId: string;
  let notesId: string;
  let minutesId: string;
  const seen: SeenEvent[] = [];
  const projectId = randomUUID();
  const { http } = stack;
  const indexingQueue = () => stack.sut.app.get<Queue>(getQueueToken(INDEXING_QUEUE));
  const statuses = async (): Promise<string[]> =>
    (
      await stack.sut.db.query('SELECT "extractionStatus" AS s FROM connector.documents WHERE "dataSourceId" = $1', [
        dataSourceId,
      ])
    ).map((r: { s: string }) => r.s);
  const seenFor = (type: string, syncRunId: string) => seen.filter((e) => e.type === type && e.syncRunId === syncRunId);
  const view = async () => (await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(200)).body;

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    // The agent runtime's side: take every job and note where extraction stands at that moment.
    events = new Bull(SharedQueue.ConnectorEvents, String(stack.sut.env.REDIS_URL), {
      prefix: String(stack.sut.env.QUEUE_PREFIX),
    });
    void events.process('*', async (job) => {
      seen.push({ type: job.name, syncRunId: job.data.syncRunId, data: job.data, statuses: await statuses() });
    });
    const credentialId = (
      await http()
        .post('/v1/credentials')
        .set(user.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    dataSourceId = (
      await http()
        .post(`/v1/projects/${projectId}/data-sources`)
        .set(user.auth)
        .send({ name: 'Searchable', credentialId, connectionId: stack.connections.connect(user) })
        .expect(201)
    ).body.id;
    const folderId = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `searchable-${randomUUID().slice(0, 8)}`,
      })
    ).data.id;
    notesId = (
      await stack.sim.admin.post('/files', {
        parentId: folderId,
        name: 'notes.txt',
        text: 'Site notes: the tower crane arrives on Monday.',
      })
    ).data.id;
    minutesId = (
      await stack.sim.admin.post('/files', {
        parentId: folderId,
        name: 'minutes.txt',
        text: 'Meeting minutes: pour the slab on Friday.',
      })
    ).data.id;
    await stack.sim.admin.post('/files', {
      parentId: folderId,
      name: 'sheet.pdf',
      generate: { format: 'pdf', size: 4000, seed: 7 },
    });
    await stack.sim.admin.post('/files', {
      parentId: folderId,
      name: 'broken.pdf',
      mimeType: 'application/pdf',
      base64: Buffer.from('%PDF-1.4 cut short').toString('base64'),
    });
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(user.auth)
      .send({ include: [folderId], exclude: [] })
      .expect(200);
  });

  it('is published once, after the last pending text is saved, when extractions outlast the run', async () => {
    await indexingQueue().pause(true);
    const run = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(run).toMatchObject({ status: 'Succeeded', counts: { added: 4 } });
    const completed = await eventually(async () => seenFor('SyncCompleted', run.id)[0], 10000);
    expect(completed.data.pendingExtractions).toBe(4);
    expect((await view()).extraction).toEqual({ done: 0, pending: 4, failed: 0 });
    await after(500);
    expect(seenFor('DataSourceSearchable', run.id)).toEqual([]);

    // Every extraction at once (as jobs of several workers would): exactly one of them announces.
    const docs: Array<{ id: string; contentSha256: string }> = await stack.sut.db.query(
      'SELECT id, "contentSha256" FROM connector.documents WHERE "dataSourceId" = $1',
      [dataSourceId],
    );
    await Promise.all(
      docs.map((d) =>
        stack.sut.app.get(IndexingService).extractText({ documentId: d.id, contentSha256: d.contentSha256 }),
      ),
    );
    const [searchable] = await eventually(
      async () => seenFor('DataSourceSearchable', run.id).length > 0 && seenFor('DataSourceSearchable', run.id),
      10000,
    );
    expect(searchable.statuses).toHaveLength(4);
    expect(searchable.statuses).not.toContain('Pending');
    expect(searchable.data).toEqual({
      type: 'DataSourceSearchable',
      tenantId: user.tenantId,
      projectId,
      dataSourceId,
      syncRunId: run.id,
      documents: 4,
      failed: 1,
    });
    expect(await view()).toMatchObject({ pendingExtractions: 0, extraction: { done: 3, pending: 0, failed: 1 } });

    await indexingQueue().resume(true); // the queued jobs find their text saved already
    await eventually(async () => (await indexingQueue().getJobCounts()).waiting === 0, 10000);
    await after(1000);
    expect(seenFor('DataSourceSearchable', run.id)).toHaveLength(1);
  }, 120000);

  it('is published at the end of a run that leaves nothing pending, with the same counts', async () => {
    const run = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(run).toMatchObject({ status: 'Succeeded', counts: { added: 0, updated: 0, unchanged: 4 } });
    const completed = await eventually(async () => seenFor('SyncCompleted', run.id)[0], 10000);
    expect(completed.data.pendingExtractions).toBe(0);
    const [searchable] = await eventually(
      async () => seenFor('DataSourceSearchable', run.id).length > 0 && seenFor('DataSourceSearchable', run.id),
      10000,
    );
    expect(searchable.data).toEqual({
      type: 'DataSourceSearchable',
      tenantId: user.tenantId,
      projectId,
      dataSourceId,
      syncRunId: run.id,
      documents: 4,
      failed: 1,
    });
    // Recorded in the transaction that ended the run (now() is the transaction's start in both).
    const [row] = await stack.sut.db.query(
      `SELECT o."createdAt" = r."finishedAt" AS "atRunEnd", r."searchableAt" = r."finishedAt" AS "markedAtRunEnd"
       FROM connector.connector_event_outbox o JOIN connector.sync_runs r ON r.id = $1 WHERE o."eventId" = $2`,
      [run.id, `data-source-searchable:${run.id}`],
    );
    expect(row).toEqual({ atRunEnd: true, markedAtRunEnd: true });
    await after(1000);
    expect(seenFor('DataSourceSearchable', run.id)).toHaveLength(1);
    expect((await view()).extraction).toEqual({ done: 3, pending: 0, failed: 1 });
  }, 120000);

  it('is recorded once when the last two pending texts are saved at the same moment', async () => {
    await indexingQueue().pause(true);
    await stack.sim.admin.patch(`/files/${notesId}`, { text: 'Site notes, revised: the crane arrives on Tuesday.' });
    await stack.sim.admin.patch(`/files/${minutesId}`, {
      text: 'Meeting minutes, revised: pour the slab on Saturday.',
    });
    const run = await syncToEnd(stack.sut.app, user, dataSourceId);
    expect(run.counts).toMatchObject({ updated: 2, unchanged: 2 });
    const pending: Array<{ id: string; contentSha256: string }> = await stack.sut.db.query(
      `SELECT id, "contentSha256" FROM connector.documents WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Pending'`,
      [dataSourceId],
    );
    expect(pending).toHaveLength(2);

    // Each transaction saves its text, then waits until the other has saved its own (uncommitted) before it looks.
    const documents = stack.sut.app.get(DocumentsRepository);
    const announcer = stack.sut.app.get(SearchableAnnouncer);
    const bothSaved = barrier(2);
    const recorded = await Promise.all(
      pending.map((d) =>
        stack.sut.app.get(Transactions).run(async (transaction) => {
          expect(
            await documents.saveExtraction(
              transaction,
              d,
              { status: 'Succeeded', error: null, text: 'revised' },
              layOut('revised', []),
            ),
          ).toBe(true);
          await bothSaved();
          return announcer.afterExtraction(transaction, dataSourceId);
        }),
      ),
    );
    expect(recorded.filter((event) => event !== null)).toHaveLength(1);
    // The relay publishes what the transaction recorded.
    await eventually(async () => seenFor('DataSourceSearchable', run.id).length > 0, 10000);
    await indexingQueue().resume(true);
    await after(1000);
    expect(seenFor('DataSourceSearchable', run.id)).toHaveLength(1);
  }, 120000);
});
