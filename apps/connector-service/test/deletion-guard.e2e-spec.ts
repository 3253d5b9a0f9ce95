import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

interface TreeFile {
  documentId: string;
  name: string;
}

/**
 * Three selected folders: A (20 files), B and C (2 files each), under the default DELETE_GUARD_PERCENT (30).
 * The steps build on each other: each deletion below is measured against what is left by then.
 */
describe('Deletion guard', () => {
  const stack = connectorOnSimulator();
  let owner: TestCaller;
  let member: TestCaller;
  let bystander: TestCaller;
  let stranger: TestCaller;
  let admin: TestCaller;
  let dataSourceId: string;
  let credentialId: string;
  const folders: Record<'A' | 'B' | 'C', string> = { A: '', B: '', C: '' };
  const files: Record<'A' | 'B' | 'C', Array<{ id: string; name: string }>> = { A: [], B: [], C: [] };
  const { http } = stack;
  const confirm = (runId: string, caller: TestCaller) =>
    http().post(`/v1/sync-runs/${runId}/confirm-deletions`).set(caller.auth);
  const documentsIn = async (folder: 'A' | 'B' | 'C'): Promise<TreeFile[]> =>
    (
      await http()
        .get(`/v1/data-sources/${dataSourceId}/tree`)
        .query({ folderId: folders[folder] })
        .set(owner.auth)
        .expect(200)
    ).body.files;
  const filesOf = async (runId: string, outcome?: string) =>
    (
      await http()
        .get(`/v1/sync-runs/${runId}/files`)
        .query(outcome ? { outcome } : {})
        .set(owner.auth)
        .expect(200)
    ).body;
  const source = async () => (await http().get(`/v1/data-sources/${dataSourceId}`).set(owner.auth).expect(200)).body;
  const removeFiles = async (folder: 'A' | 'B' | 'C', count: number) => {
    for (const file of files[folder].splice(0, count)) await stack.sim.admin.delete(`/nodes/${file.id}`);
  };

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    owner = await testCaller({ tenantId: admin.tenantId });
    member = await testCaller({ tenantId: admin.tenantId });
    bystander = await testCaller({ tenantId: admin.tenantId });
    stranger = await testCaller({ tenantId: admin.tenantId });
    credentialId = (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    dataSourceId = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(owner.auth)
        .send({ name: 'Guarded', credentialId, connectionId: stack.connections.connect(owner) })
        .expect(201)
    ).body.id;
    for (const user of [member, bystander])
      await http()
        .post(`/v1/data-sources/${dataSourceId}/members`)
        .set(owner.auth)
        .send({ userId: user.userId })
        .expect(201);
    const parent = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `guard-${randomUUID()}`,
      })
    ).data;
    for (const [name, count] of [
      ['A', 20],
      ['B', 2],
      ['C', 2],
    ] as const) {
      folders[name] = (await stack.sim.admin.post('/folders', { parentId: parent.id, name })).data.id;
      for (let i = 0; i < count; i++) {
        const file = `${name}-${String(i).padStart(2, '0')}.txt`;
        files[name].push(
          (
            await stack.sim.admin.post('/files', {
              parentId: folders[name],
              name: file,
              text: `${file} in folder ${name}`,
            })
          ).data,
        );
      }
    }
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(owner.auth)
      .send({ include: Object.values(folders), exclude: [] })
      .expect(200);
  });

  it('shows deletionsHeld 0 on a run that holds nothing', async () => {
    const run = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(run).toMatchObject({ status: 'Succeeded', deletionsHeld: 0, counts: { added: 24, deleted: 0 } });
  });

  let heldRunId: string;
  let heldDocuments: TreeFile[];

  it('holds every deletion of a run that would delete more than 30%, and keeps the documents', async () => {
    const doomed = new Set(files.A.slice(0, 8).map((f) => f.name));
    heldDocuments = (await documentsIn('A')).filter((d) => doomed.has(d.name));
    expect(heldDocuments).toHaveLength(8);
    await removeFiles('A', 8); // 8 of 24: 33%
    const run = await syncToEnd(stack.sut.app, member, dataSourceId);
    heldRunId = run.id;
    expect(run).toMatchObject({ mode: 'Incremental', status: 'PartiallySucceeded', deletionsHeld: 8 });
    expect(run.counts.deleted).toBe(0);
    // Said once, in an admin's words: no API path, no environment variable.
    expect(run.error).toBe(
      '8 documents are no longer in the document system: that is 8 of 24 documents, more than the 30% a sync ' +
        'deletes on its own. They are kept until you confirm their deletion.',
    );
    // The ledger lists the files it would delete, before anyone confirms.
    const held = (await filesOf(heldRunId, 'Held')).items;
    expect(held.map((i: { documentId: string }) => i.documentId).sort()).toEqual(
      heldDocuments.map((d) => d.documentId).sort(),
    );
    expect(held[0]).toMatchObject({ outcome: 'Held', reason: 'More than 30% of the documents would go at once' });
    expect((await filesOf(heldRunId)).items.filter((i: { outcome: string }) => i.outcome === 'Held')).toHaveLength(8);
    expect((await source()).ingestionStatus).toBe('PartiallySynced');
    for (const doc of heldDocuments) await http().get(`/v1/documents/${doc.documentId}`).set(owner.auth).expect(200);
    expect(await documentsIn('A')).toHaveLength(20);
    const listed = (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(owner.auth).expect(200)).body;
    expect(listed.map((r: { deletionsHeld: number }) => r.deletionsHeld)).toEqual([8, 0]);
  });

  it("lets only the data source's creator or an admin confirm: 403 for other members, the run's starter among them", async () => {
    for (const other of [bystander, member]) {
      const res = await confirm(heldRunId, other).expect(403);
      expect(res.body).toMatchObject({ statusCode: 403, code: 'DELETIONS_CONFIRM_FORBIDDEN' });
    }
    expect((await confirm(heldRunId, stranger).expect(404)).body.code).toBe('SYNC_RUN_NOT_FOUND');
    await http().post(`/v1/sync-runs/${heldRunId}/confirm-deletions`).expect(401);
    expect((await http().get(`/v1/sync-runs/${heldRunId}`).set(owner.auth)).body.deletionsHeld).toBe(8);
  });

  it('applies the held deletions once, however many confirm at the same time; then 409 NOTHING_HELD', async () => {
    const answers = await Promise.all([confirm(heldRunId, admin), confirm(heldRunId, owner)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 200)!.body).toEqual({ deleted: 8 });
    expect(answers.find((a) => a.status === 409)!.body).toMatchObject({ statusCode: 409, code: 'NOTHING_HELD' });
    const again = await confirm(heldRunId, owner).expect(409);
    expect(again.body).toMatchObject({ code: 'NOTHING_HELD', error: 'Conflict' });
    const run = (await http().get(`/v1/sync-runs/${heldRunId}`).set(owner.auth).expect(200)).body;
    // The run and its data source no longer say the deletions are held: they show how it ended.
    expect(run).toMatchObject({ status: 'Succeeded', error: null, deletionsHeld: 0, counts: { deleted: 8 } });
    expect((await source()).ingestionStatus).toBe('Synced');
    expect((await filesOf(heldRunId, 'Held')).items).toEqual([]);
    for (const doc of heldDocuments) await http().get(`/v1/documents/${doc.documentId}`).set(owner.auth).expect(404);
    expect(await documentsIn('A')).toHaveLength(12);
    // The run's ledger says what the confirmation deleted.
    const ledger = (
      await http().get(`/v1/sync-runs/${heldRunId}/files`).query({ outcome: 'Deleted' }).set(owner.auth).expect(200)
    ).body;
    expect(ledger.items.map((i: { documentId: string }) => i.documentId).sort()).toEqual(
      heldDocuments.map((d) => d.documentId).sort(),
    );
  });

  it('answers 409 NOTHING_HELD for a run that held nothing', async () => {
    const first = (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(owner.auth)).body.at(-1);
    expect((await confirm(first.id, owner).expect(409)).body.code).toBe('NOTHING_HELD');
  });

  it('still deletes a small deletion at once', async () => {
    await removeFiles('A', 1); // 1 of 16
    const run = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(run).toMatchObject({ status: 'Succeeded', deletionsHeld: 0, error: null, counts: { deleted: 1 } });
    expect(await documentsIn('A')).toHaveLength(11);
  });

  it('holds the deletions when a selected folder no longer exists, however few; an admin confirms', async () => {
    const before = await documentsIn('B');
    await stack.sim.admin.delete(`/nodes/${folders.B}`); // 2 of 15: 13%
    const run = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', deletionsHeld: 2, counts: { deleted: 0 } });
    expect(run.error).toMatch(
      /^2 documents are no longer .*: the selected folder \/.*\/B is gone or empty\. They are kept/,
    );
    expect((await filesOf(run.id, 'Held')).items).toEqual([
      expect.objectContaining({ outcome: 'Held', reason: 'Its selected folder is gone or empty' }),
      expect.objectContaining({ outcome: 'Held', reason: 'Its selected folder is gone or empty' }),
    ]);
    for (const doc of before) await http().get(`/v1/documents/${doc.documentId}`).set(owner.auth).expect(200);
    expect((await confirm(run.id, admin).expect(200)).body).toEqual({ deleted: 2 });
    for (const doc of before) await http().get(`/v1/documents/${doc.documentId}`).set(owner.auth).expect(404);
    const next = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(next).toMatchObject({ status: 'Succeeded', deletionsHeld: 0, counts: { deleted: 0 } });
  });

  it('holds the deletions when a selected folder lists nothing any more', async () => {
    await removeFiles('C', 2); // 2 of 13: 15%
    const run = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', deletionsHeld: 2, counts: { deleted: 0 } });
    expect(run.error).toMatch(/\/C is gone or empty/);
    expect(await documentsIn('C')).toHaveLength(2);
  });

  it('refuses a confirmation that meets a run being started: it waits for the run, then answers 409 NOTHING_HELD', async () => {
    const earlier = (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(owner.auth)).body[0];
    expect(earlier.deletionsHeld).toBeGreaterThan(0);
    const starting = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await starting.connect();
    try {
      await starting.query('BEGIN');
      const later = await starting.query(
        `INSERT INTO connector.sync_runs ("tenantId", "dataSourceId", mode, status, "createdBy")
         VALUES ($1, $2, 'Incremental', 'Cancelled', $3) RETURNING id`,
        [owner.tenantId, dataSourceId, owner.userId],
      );
      let answered = false;
      const answer = confirm(earlier.id, owner).then((res) => ((answered = true), res));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      await starting.query('COMMIT');
      expect((await answer).body).toMatchObject({ statusCode: 409, code: 'NOTHING_HELD' });
      expect((await http().get(`/v1/sync-runs/${earlier.id}`).set(owner.auth)).body.deletionsHeld).toBe(
        earlier.deletionsHeld,
      );
      await starting.query('DELETE FROM connector.sync_runs WHERE id = $1', [later.rows[0].id]);
    } finally {
      await starting.end();
    }
  });

  it('releases what a run held once a later run starts: that run decides afresh', async () => {
    const earlier = (await http().get(`/v1/data-sources/${dataSourceId}/sync-runs`).set(owner.auth)).body[0];
    const later = await syncToEnd(stack.sut.app, owner, dataSourceId);
    expect(later).toMatchObject({ status: 'PartiallySucceeded', deletionsHeld: 2 });
    expect((await confirm(earlier.id, owner).expect(409)).body.code).toBe('NOTHING_HELD');
    const released = (await http().get(`/v1/sync-runs/${earlier.id}`).set(owner.auth)).body;
    expect(released.deletionsHeld).toBe(0);
    // It no longer asks for a confirmation it would refuse, and its files say why they were not deleted.
    expect(released.error).not.toMatch(/until you confirm/);
    expect(released.error).toMatch(/They were kept: a later sync decides their deletion afresh\.$/);
    const heldBefore = (await filesOf(earlier.id, 'Held')).items;
    expect(heldBefore.length).toBeGreaterThan(0);
    for (const file of heldBefore) expect(file.reason).toMatch(/a later sync decides/);
    expect((await confirm(later.id, owner).expect(200)).body).toEqual({ deleted: 2 });
  });

  it('holds when most of what stays selected goes in the run after a folder was deselected, and drops the deselected folder at once', async () => {
    const parent = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `deselect-${randomUUID()}`,
      })
    ).data;
    const folder = async (name: string, count: number) => {
      const id = (await stack.sim.admin.post('/folders', { parentId: parent.id, name })).data.id as string;
      const made = [];
      for (let i = 0; i < count; i++)
        made.push(
          (await stack.sim.admin.post('/files', { parentId: id, name: `${name}-${i}.txt`, text: `${name} ${i}` })).data,
        );
      return { id, files: made as Array<{ id: string }> };
    };
    const [kept, dropped] = [await folder('Kept', 3), await folder('Dropped', 7)];
    const id = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(owner.auth)
        .send({
          name: 'Narrowed',
          credentialId,
          connectionId: stack.connections.connect(owner),
          selection: { include: [kept.id, dropped.id], exclude: [] },
        })
        .expect(201)
    ).body.id;
    expect(await syncToEnd(stack.sut.app, owner, id)).toMatchObject({ status: 'Succeeded', counts: { added: 10 } });
    await http()
      .put(`/v1/data-sources/${id}/selection`)
      .set(owner.auth)
      .send({ include: [kept.id], exclude: [] })
      .expect(200);
    for (const file of kept.files.slice(0, 2)) await stack.sim.admin.delete(`/nodes/${file.id}`); // 2 of the 3 still selected
    const run = await syncToEnd(stack.sut.app, owner, id);
    // What its creator deselected is theirs to drop: no member reads it on while the vanished files wait.
    expect(run).toMatchObject({ status: 'PartiallySucceeded', deletionsHeld: 2, counts: { deleted: 7 } });
    expect(run.error).toMatch(/^2 documents are no longer in the document system: that is 2 of 3 documents/);
    const stored: Array<{ folderId: string; n: number }> = await stack.sut.db.query(
      'SELECT "folderId", count(*)::int AS n FROM connector.documents WHERE "dataSourceId" = $1 GROUP BY "folderId"',
      [id],
    );
    expect(stored).toEqual([{ folderId: kept.id, n: 3 }]); // the 2 held stay until confirmed
  });

  it('confirms through a deadlock with a text saved meanwhile: the confirmation is tried again, not a 503', async () => {
    await stack.sim.admin.delete(`/nodes/${folders.A}`);
    const run = await syncToEnd(stack.sut.app, owner, dataSourceId);
    const held = await documentsIn('A');
    expect(run).toMatchObject({ status: 'PartiallySucceeded', deletionsHeld: held.length });
    const saving = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await saving.connect();
    try {
      // As an extraction saves a text: its document first, then the run's searchable mark.
      await saving.query('BEGIN');
      await saving.query(`UPDATE connector.documents SET "updatedAt" = now() WHERE id = $1`, [held[0].documentId]);
      const answer = confirm(run.id, owner).then((res) => res); // takes the run's row, then waits for the document
      await new Promise((resolve) => setTimeout(resolve, 300));
      // PostgreSQL ends the confirmation's transaction, which has waited longer (deadlock_timeout).
      await saving.query(`UPDATE connector.sync_runs SET "searchableAt" = "searchableAt" WHERE id = $1`, [run.id]);
      await saving.query('COMMIT');
      expect((await answer).body).toEqual({ deleted: held.length });
    } finally {
      await saving.end();
    }
  });
});
