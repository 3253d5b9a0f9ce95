import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import { Transactions } from '@app/database';
import { FairShare, fairShareToken } from '@app/queue';
import { after, eventually, testCaller, TestCaller } from '@app/testing';
import { DocumentsRepository } from '../src/documents/documents.repository';
import { chunkText, DEEP_CHUNKS_FROM } from '../src/extraction/chunker';
import { layOut } from '../src/extraction/text-layout';
import { extractTextJobId, INDEXING_QUEUE } from '../src/indexing/indexing.jobs';
import { IndexingProducer } from '../src/indexing/indexing.producer';
import { IndexingService } from '../src/indexing/indexing.service';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, syncToSearchable, waitForExtraction } from './support/sync-helpers';

interface StoredDocument {
  id: string;
  contentSha256: string;
  extractionStatus: string;
  extractionError: string | null;
  text: string;
  updatedAt: Date;
}

/** Text extraction runs on the `connector-indexing` queue after a run has stored the files. */
describe('Text extraction on the indexing queue', () => {
  // One test deletes one of three documents: more than the deletion guard's default 30%, which is not what it tests.
  const stack = connectorOnSimulator({ env: { DELETE_GUARD_PERCENT: 100 } });
  let user: TestCaller;
  let dataSourceId: string;
  let folderId: string;
  let notesId: string;
  const projectId = randomUUID();
  const { http } = stack;
  const queue = () => stack.sut.app.get<Queue>(getQueueToken(INDEXING_QUEUE));
  const indexing = () => stack.sut.app.get(IndexingService);
  const doc = async (name: string): Promise<StoredDocument | undefined> =>
    (
      await stack.sut.db.query(
        `SELECT id, "contentSha256", "extractionStatus", "extractionError", text, "updatedAt" FROM connector.documents WHERE "dataSourceId" = $1 AND name = $2`,
        [dataSourceId, name],
      )
    )[0];
  const hits = async (q: string): Promise<string[]> =>
    (
      await http().get(`/v1/projects/${projectId}/search`).query({ q, dataSourceId }).set(user.auth).expect(200)
    ).body.hits.map((h: { name: string }) => h.name);
  /** Runs `work` while this process's indexing worker takes no jobs (they wait in Redis). */
  const withIndexingPaused = async <T>(work: () => Promise<T>): Promise<T> => {
    await queue().pause(true);
    try {
      return await work();
    } finally {
      await queue().resume(true);
    }
  };

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    folderId = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `indexing-${randomUUID().slice(0, 8)}`,
      })
    ).data.id;
    notesId = (
      await stack.sim.admin.post('/files', {
        parentId: folderId,
        name: 'notes.txt',
        text: 'Site notes: the tower crane arrives on Monday.',
      })
    ).data.id;
    dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, user, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(user),
      include: [folderId, await stack.sim.folderId('/Architecture/Drawings/Sections')],
      name: 'Indexing',
      projectId,
    });
  });

  it('ends the run with its documents Pending, then makes their text searchable (Succeeded)', async () => {
    const run = await withIndexingPaused(async () => {
      const ended = await syncToEnd(stack.sut.app, user, dataSourceId);
      expect(ended).toMatchObject({ status: 'Succeeded', counts: { failed: 0 } });
      expect((await http().get(`/v1/data-sources/${dataSourceId}`).set(user.auth).expect(200)).body).toMatchObject({
        ingestionStatus: 'Synced',
        pendingExtractions: ended.counts.added,
      });
      const pdf = (await doc('A-501 Wall Sections.pdf'))!;
      expect((await http().get(`/v1/documents/${pdf.id}`).set(user.auth).expect(200)).body.extraction).toEqual({
        status: 'Pending',
        error: null,
      });
      expect(await hits(`"${SEED_PHRASES.pdf}"`)).toEqual([]);
      expect(await hits('Wall Sections')).toContain('A-501 Wall Sections.pdf'); // names are searchable at once
      return ended;
    });
    expect(run.counts.added).toBeGreaterThan(1);

    await waitForExtraction(stack.sut.app, user, dataSourceId);
    const pdf = (await doc('A-501 Wall Sections.pdf'))!;
    expect((await http().get(`/v1/documents/${pdf.id}`).set(user.auth).expect(200)).body.extraction).toEqual({
      status: 'Succeeded',
      error: null,
    });
    expect(await hits(`"${SEED_PHRASES.pdf}"`)).toEqual(['A-501 Wall Sections.pdf']);
    expect((await http().get(`/v1/documents/${pdf.id}/text`).set(user.auth).expect(200)).body.text).toContain(
      SEED_PHRASES.pdf,
    );
    expect(await hits('tower crane')).toEqual(['notes.txt']);
  });

  it('does nothing with a stale job for the old content after the file changed; the old text stays searchable until the new one lands', async () => {
    const before = (await doc('notes.txt'))!;
    await stack.sim.admin.patch(`/files/${notesId}`, { text: 'Site notes: the concrete pour moved to Friday.' });
    await withIndexingPaused(async () => {
      expect((await syncToEnd(stack.sut.app, user, dataSourceId)).counts).toMatchObject({ updated: 1, failed: 0 });
      const changed = (await doc('notes.txt'))!;
      expect(changed).toMatchObject({ id: before.id, extractionStatus: 'Pending', text: before.text });
      expect(changed.contentSha256).not.toBe(before.contentSha256);
      expect(await hits('tower crane')).toEqual(['notes.txt']);

      expect(await indexing().extractText({ documentId: before.id, contentSha256: before.contentSha256 })).toBe(
        'Superseded',
      );
      // Even a job that got past that check before the change cannot save: the update is conditional on the content.
      const repository = stack.sut.app.get(DocumentsRepository);
      const stale = { status: 'Succeeded' as const, error: null, text: 'stale text' };
      expect(
        await stack.sut.app
          .get(Transactions)
          .run((transaction) =>
            repository.saveExtraction(
              transaction,
              { id: before.id, contentSha256: before.contentSha256 },
              stale,
              layOut(stale.text, []),
            ),
          ),
      ).toBe(false);
      expect(await doc('notes.txt')).toMatchObject({
        contentSha256: changed.contentSha256,
        extractionStatus: 'Pending',
        text: before.text,
      });
    });
    await waitForExtraction(stack.sut.app, user, dataSourceId);
    expect(await doc('notes.txt')).toMatchObject({
      extractionStatus: 'Succeeded',
      text: 'Site notes: the concrete pour moved to Friday.',
    });
    expect(await hits('concrete pour')).toEqual(['notes.txt']);
    expect(await hits('tower crane')).toEqual([]);
  });

  it('keeps saved text when a repeated job for the same content gives up (a redelivered or re-added job)', async () => {
    const notes = (await doc('notes.txt'))!;
    expect(notes.extractionStatus).toBe('Succeeded');

    await indexing().giveUp({ documentId: notes.id, contentSha256: notes.contentSha256 }, new Error('worker stalled'));

    expect(await doc('notes.txt')).toMatchObject({ extractionStatus: 'Succeeded', text: notes.text });
    expect(await hits('concrete pour')).toEqual(['notes.txt']);
  });

  it('does nothing with a job for a deleted document', async () => {
    const temp = (
      await stack.sim.admin.post('/files', {
        parentId: folderId,
        name: 'temporary.txt',
        text: 'scaffolding inspection checklist',
      })
    ).data;
    await syncToSearchable(stack.sut.app, user, dataSourceId);
    const gone = (await doc('temporary.txt'))!;
    await stack.sim.admin.delete(`/nodes/${temp.id}`);
    expect((await syncToEnd(stack.sut.app, user, dataSourceId)).counts).toMatchObject({ deleted: 1 });
    expect(await doc('temporary.txt')).toBeUndefined();

    expect(await indexing().extractText({ documentId: gone.id, contentSha256: gone.contentSha256 })).toBe('Superseded');
    expect(await indexing().extractText({ documentId: randomUUID(), contentSha256: gone.contentSha256 })).toBe(
      'Superseded',
    );
    // The same through the queue: the job completes (and is removed) without bringing the document back.
    const goneJob = { documentId: gone.id, contentSha256: gone.contentSha256 };
    await stack.sut.app.get(IndexingProducer).extractText([goneJob], user.tenantId);
    const fairShare = stack.sut.app.get<FairShare>(fairShareToken(INDEXING_QUEUE));
    await eventually(
      async () =>
        !(await fairShare.has(extractTextJobId(goneJob))) && !(await queue().getJob(extractTextJobId(goneJob))),
    );
    expect(await doc('temporary.txt')).toBeUndefined();
    expect(await hits('scaffolding inspection')).toEqual([]);
  });

  it('queues a Pending document whose job was lost again on the sweep, once it has waited a few minutes', async () => {
    expect((await queue().getRepeatableJobs()).map((job) => job.id)).toContain('sweep'); // every minute on its own
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'lost.txt', text: 'formwork stripping schedule' });
    const lost = await withIndexingPaused(async () => {
      await syncToEnd(stack.sut.app, user, dataSourceId);
      const pending = (await doc('lost.txt'))!;
      expect(pending.extractionStatus).toBe('Pending');
      await queue().empty(); // Redis lost the waiting job
      expect(
        await queue().getJob(extractTextJobId({ documentId: pending.id, contentSha256: pending.contentSha256 })),
      ).toBeNull();
      expect(await indexing().requeuePending()).toBe(0); // too young: its job may just be waiting
      return pending;
    });
    await stack.sut.db.query(
      `UPDATE connector.documents SET "updatedAt" = now() - interval '10 minutes' WHERE id = $1`,
      [lost.id],
    );
    expect(await indexing().requeuePending()).toBe(1);
    await waitForExtraction(stack.sut.app, user, dataSourceId);
    expect(await doc('lost.txt')).toMatchObject({ extractionStatus: 'Succeeded', text: 'formwork stripping schedule' });
    expect(await hits('formwork stripping')).toEqual(['lost.txt']);
  });

  it("looks for lost extractions in every data source, however many of another tenant's documents wait longer", async () => {
    const other = await testCaller({ roles: ['admin'] });
    const busy = await dataSourceSelecting(stack.sut.app, stack.sim, other, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(other),
      include: [folderId],
    });
    /** `count` Pending documents, updated `minutesAgo`, that no run or job knows of. */
    const pending = async (caller: TestCaller, sourceId: string, count: number, minutesAgo: number) =>
      (
        await stack.sut.db.query(
          `INSERT INTO connector.documents ("tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType",
             size, "extractionStatus", "contentSha256", "lastSeenRunId", "updatedAt")
           SELECT $1, $2, 'pending-' || gen_random_uuid(), 'f', 'p.txt', '/p.txt', 'text/plain', 1, 'Pending',
             repeat('0', 64), gen_random_uuid(), now() - make_interval(mins => $3)
           FROM generate_series(1, $4::int) RETURNING id`,
          [caller.tenantId, sourceId, minutesAgo, count],
        )
      ).map((row: { id: string }) => row.id as string);
    const waiting = await pending(other, busy, 3, 20);
    const [lost] = await pending(user, dataSourceId, 1, 10);
    try {
      const sweep = await stack.sut.app
        .get(DocumentsRepository)
        .pendingExtractions(new Date(Date.now() - 5 * 60_000), 2);
      expect(sweep.map((d) => d.id)).toContain(lost);
    } finally {
      await stack.sut.db.query('DELETE FROM connector.documents WHERE id = ANY($1)', [[...waiting, lost]]);
    }
  });

  it('extracts text holding characters beyond the BMP without a blank, and HTML naming half of one', async () => {
    // 12,000 UTF-16 units without a blank: chunks are cut at a fixed length, which fell inside a pair.
    const emoji = `tilework ${'😀'.repeat(6000)} grout`;
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'emoji.txt', text: emoji });
    await stack.sim.admin.post('/files', {
      parentId: folderId,
      name: 'half.html',
      mimeType: 'text/html',
      text: '<p>caulking &#xD800; bead</p>',
    });
    await syncToEnd(stack.sut.app, user, dataSourceId);
    await waitForExtraction(stack.sut.app, user, dataSourceId);
    expect(await doc('emoji.txt')).toMatchObject({ extractionStatus: 'Succeeded' });
    expect(await doc('half.html')).toMatchObject({ extractionStatus: 'Succeeded', text: 'caulking \ufffd bead' });
    expect(await hits('grout')).toEqual(['emoji.txt']);
  });

  it("stores a document's text once: chunks only for the part past what the document's own vectors search", async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `bay ${i} grid line survey`).join(' ');
    const longText = `${filler(1500)} waterstop detail at the podium slab`;
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'long.txt', text: longText });
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'short.txt', text: 'handrail bracket spacing' });
    await syncToSearchable(stack.sut.app, user, dataSourceId);

    expect(await hits('waterstop podium')).toEqual(['long.txt']); // found past the first 10,000 characters
    expect(await hits('handrail bracket')).toEqual(['short.txt']);
    const chunkIndexes = async (name: string): Promise<number[]> =>
      (
        await stack.sut.db.query(`SELECT index FROM connector.document_chunks WHERE "documentId" = $1 ORDER BY index`, [
          (await doc(name))!.id,
        ])
      ).map((row: { index: number }) => row.index);
    const long = (await doc('long.txt'))!;
    const deep = chunkText(long.text).filter((chunk) => chunk.index >= DEEP_CHUNKS_FROM);
    expect(deep.length).toBeGreaterThan(0);
    expect(await chunkIndexes('long.txt')).toEqual(deep.map((chunk) => chunk.index));
    expect(await chunkIndexes('short.txt')).toEqual([]);
  });

  it('keeps each deep chunk whole in its row: its vector is not moved out to TOAST, where ranking read it back', async () => {
    const [{ toast }] = await stack.sut.db.query(
      `SELECT reltoastrelid::regclass::text AS toast FROM pg_class WHERE oid = 'connector.document_chunks'::regclass`,
    );
    const toastRows = async (): Promise<number> =>
      (await stack.sut.db.query(`SELECT count(*)::int AS n FROM ${toast}`))[0].n;
    const before = await toastRows();
    // 4,000 different words: each chunk of 1,200 characters has a vector of about 2 KB.
    const varied = Array.from({ length: 4000 }, (_, i) => `term${i.toString(36)}q`).join(' ');
    await stack.sim.admin.post('/files', { parentId: folderId, name: 'varied.txt', text: varied });
    await syncToSearchable(stack.sut.app, user, dataSourceId);

    const [{ chunks }] = await stack.sut.db.query(
      `SELECT count(*)::int AS chunks FROM connector.document_chunks WHERE "documentId" = $1`,
      [(await doc('varied.txt'))!.id],
    );
    expect(chunks).toBeGreaterThan(10);
    expect(await toastRows()).toBe(before);
    expect(await hits(`term${(3990).toString(36)}q`)).toEqual(['varied.txt']);
  });

  it('fails a document whose extraction stopped its worker past the stall limit, and does not queue it again', async () => {
    await stack.sim.admin.post('/files', {
      parentId: folderId,
      name: 'kills-workers.txt',
      text: 'every worker dies reading this',
    });
    // Held with its blocking reads cut short: a read already waiting would take the job when it is back.
    await queue().pause(true, true);
    let settled: StoredDocument;
    let jobId: string;
    try {
      await syncToEnd(stack.sut.app, user, dataSourceId);
      const pending = (await doc('kills-workers.txt'))!;
      jobId = extractTextJobId({ documentId: pending.id, contentSha256: pending.contentSha256 });
      await eventually(() => queue().getJob(jobId)); // admitted to Bull by the fair share
      // What a worker killed while extracting leaves: the job active, its lock gone. Bull's stalled check hands it
      // back to waiting, until it has stalled more than MAX_STALLED_COUNT (2) times and fails it.
      const { client } = queue();
      let taken = 0;
      // Until Bull fails it: once deleted, the fair share may admit it again (a job of the same id, added later).
      const first = (await queue().getJob(jobId))!.timestamp;
      while ((await queue().getJob(jobId))?.timestamp === first) {
        if ((await client.lrem(queue().toKey('wait'), 0, jobId)) > 0) {
          await client.lpush(queue().toKey('active'), jobId);
          taken++;
        }
        await after(100);
      }
      expect(taken).toBe(3);
      settled = pending;
      for (const until = Date.now() + 10_000; settled.extractionStatus === 'Pending' && Date.now() < until;) {
        await after(100);
        settled = (await doc('kills-workers.txt'))!;
      }
    } finally {
      await queue().resume(true);
    }
    expect(settled).toMatchObject({
      extractionStatus: 'Failed',
      extractionError: 'Text extraction did not finish: the worker extracting it stopped, each time it was tried',
    });
    await waitForExtraction(stack.sut.app, user, dataSourceId); // none left pending: the data source is searchable
    // The fair share admits its lost job again (Bull deleted it); run, it finds the document settled.
    const fairShare = stack.sut.app.get<FairShare>(fairShareToken(INDEXING_QUEUE));
    await eventually(async () => !(await fairShare.has(jobId)) && !(await queue().getJob(jobId)), 30_000);
    await stack.sut.db.query(
      `UPDATE connector.documents SET "updatedAt" = now() - interval '10 minutes' WHERE id = $1`,
      [settled.id],
    );
    expect(await indexing().requeuePending()).toBe(0);
    expect(await doc('kills-workers.txt')).toMatchObject({ extractionStatus: 'Failed', text: '' });
  }, 90_000);
});
