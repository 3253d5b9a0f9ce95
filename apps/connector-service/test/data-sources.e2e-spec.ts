import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { NO_WORKGROUPS_NOTICE } from '../src/data-sources/folders/folder-picker.service';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

describe('Data sources, folder picker and selection', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let user: TestCaller;
  const projectId = randomUUID();
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });

  async function credential(
    login: { username: string; password: string } = SEED_USERS.alice,
    instanceUrl = stack.sim.url,
  ) {
    const res = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl, ...login, scope: 'Tenant' })
      .expect(201);
    return res.body.id as string;
  }

  async function dataSource(login: { username: string; password: string } = SEED_USERS.alice, caller = user) {
    const res = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(caller.auth)
      .send({ name: 'Docs', credentialId: await credential(login), connectionId: stack.connections.connect(caller) })
      .expect(201);
    return res.body;
  }

  /** Saves a selection of `include` folders as the data source's creator. */
  const select = (id: string, include: string[]) =>
    http().put(`/v1/data-sources/${id}/selection`).set(user.auth).send({ include, exclude: [] }).expect(200);
  const folders = async (id: string, parentId?: string, cursor?: string) =>
    (
      await http()
        .get(`/v1/data-sources/${id}/folders`)
        .query({ ...(parentId ? { parentId } : {}), ...(cursor ? { cursor } : {}) })
        .set(user.auth)
        .expect(200)
    ).body;

  it('validates a credential: 200 for the right login, 422 "Credentials are invalid" for a wrong password or instance URL', async () => {
    const connectionId = stack.connections.connect(admin);
    await http()
      .post(`/v1/credentials/${await credential()}/validate`)
      .set(admin.auth)
      .send({ connectionId })
      .expect(200, { valid: true });
    // Each check signs in anew: a session kept from an earlier check would say nothing of the password now.
    const sessionCalls = async () =>
      Object.entries((await stack.sim.admin.get('/stats')).data.calls as Record<string, number>)
        .filter(([route]) => route.endsWith('/api/v1/session'))
        .reduce((n, [, calls]) => n + calls, 0);
    const before = await sessionCalls();
    await http()
      .post(`/v1/credentials/${await credential()}/validate`)
      .set(admin.auth)
      .send({ connectionId })
      .expect(200, { valid: true });
    expect(await sessionCalls()).toBe(before + 1);
    for (const id of [
      await credential({ ...SEED_USERS.alice, password: 'wrong' }),
      await credential(SEED_USERS.alice, 'http://no-such-host.invalid'),
    ]) {
      const res = await http()
        .post(`/v1/credentials/${id}/validate`)
        .set(admin.auth)
        .send({ connectionId })
        .expect(422);
      expect(res.body).toMatchObject({ code: 'CREDENTIALS_INVALID', message: 'Credentials are invalid' });
    }
  });

  it('keeps a credential’s last check: refused stays marked after a reload, until its password changes', async () => {
    const connectionId = stack.connections.connect(admin);
    const id = await credential({ ...SEED_USERS.alice, password: 'wrong' });
    const shown = async () => (await http().get(`/v1/credentials/${id}`).set(admin.auth).expect(200)).body;
    expect((await shown()).lastValidation).toBeNull();
    await http().post(`/v1/credentials/${id}/validate`).set(admin.auth).send({ connectionId }).expect(422);
    // Read again later (a reload): still marked invalid, and so in the list.
    expect((await shown()).lastValidation).toEqual({
      valid: false,
      checkedAt: expect.any(String),
      error: 'Credentials are invalid',
    });
    const listed = (await http().get('/v1/credentials').set(admin.auth).expect(200)).body;
    expect(listed.find((c: { id: string }) => c.id === id).lastValidation).toMatchObject({ valid: false });
    // A new password has not been checked yet; checked, it is valid.
    const body = {
      name: 'Sim',
      type: 'DocumentSystem',
      instanceUrl: stack.sim.url,
      ...SEED_USERS.alice,
      scope: 'Tenant',
    };
    await http().put(`/v1/credentials/${id}`).set(admin.auth).send(body).expect(200);
    expect((await shown()).lastValidation).toBeNull();
    await http().post(`/v1/credentials/${id}/validate`).set(admin.auth).send({ connectionId }).expect(200);
    expect((await shown()).lastValidation).toMatchObject({ valid: true, error: null });
  });

  it('creates a data source NotConfigured, with its creator as a member, and with an inline credential', async () => {
    const created = await dataSource();
    expect(created).toMatchObject({
      projectId,
      name: 'Docs',
      ingestionStatus: 'NotConfigured',
      selection: { include: [], exclude: [] },
      schedule: null,
      createdBy: user.userId,
    });
    const members = await http().get(`/v1/data-sources/${created.id}/members`).set(user.auth).expect(200);
    expect(members.body.map((m: { userId: string }) => m.userId)).toEqual([user.userId]);
    const inline = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(user.auth)
      .send({
        name: 'Inline',
        connectionId: stack.connections.connect(user),
        credential: {
          name: 'Inline login',
          type: 'DocumentSystem',
          instanceUrl: stack.sim.url,
          ...SEED_USERS.bob,
          scope: 'Tenant',
        },
      })
      .expect(201);
    expect(
      (await http().get(`/v1/credentials/${inline.body.credentialId}`).set(user.auth).expect(200)).body,
    ).toMatchObject({ name: 'Inline login', passwordConfigured: true });
  });

  it.each(['name', 'credentialId', 'connectionId', 'selection'])(
    'refuses a PATCH that sets %s to null with 400 naming it, changing nothing',
    async (field) => {
      const created = await dataSource();
      const res = await http()
        .patch(`/v1/data-sources/${created.id}`)
        .set(user.auth)
        .send({ [field]: null })
        .expect(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field })] });
      const after = (await http().get(`/v1/data-sources/${created.id}`).set(user.auth).expect(200)).body;
      expect(after).toMatchObject({ name: created.name, credentialId: created.credentialId });
    },
  );

  it('lists the workgroups at the root, then subfolders with hasChildren', async () => {
    const ds = await dataSource();
    const root = await folders(ds.id);
    expect(root.items.map((i: { name: string }) => i.name)).toEqual(['Architecture', 'Structural', 'MEP']);
    expect(root.items[0]).toMatchObject({ path: '/Architecture', hasChildren: true, selection: 'None' });
    const arch = await folders(ds.id, root.items[0].id);
    expect(arch.items.map((i: { name: string; hasChildren: boolean }) => [i.name, i.hasChildren])).toEqual([
      ['Drawings', true],
      ['RFIs', false],
      ['Specifications', false],
      ['Submittals', false],
    ]);
    expect(arch.items[0].path).toBe('/Architecture/Drawings');
  });

  it('pages through a folder of more than one page', async () => {
    await stack.sim.admin.put('/settings', { pageSize: 3 });
    try {
      const ds = await dataSource();
      const root = await folders(ds.id);
      const drawings = (await folders(ds.id, root.items[0].id)).items[0];
      const first = await folders(ds.id, drawings.id);
      expect(first.items).toHaveLength(3);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await folders(ds.id, drawings.id, first.nextCursor);
      expect([...first.items, ...second.items].map((i: { name: string }) => i.name)).toEqual([
        'Details',
        'Level 1',
        'Level 2',
        'Sections',
      ]);
      expect(second.nextCursor).toBeNull();
    } finally {
      await stack.sim.admin.put('/settings', { pageSize: 50 });
    }
  });

  it('keeps a data source NeedsReauth when its selection is saved again: only a new authorization clears it', async () => {
    const ds = await dataSource();
    const root = await folders(ds.id);
    const selection = { include: [root.items[0].id], exclude: [] };
    await http().put(`/v1/data-sources/${ds.id}/selection`).set(user.auth).send(selection).expect(200);
    // What a refused refresh stores on the data sources of its connection.
    await stack.sut.db.query(`UPDATE connector.data_sources SET "ingestionStatus" = 'NeedsReauth' WHERE id = $1`, [
      ds.id,
    ]);
    const saved = await http().put(`/v1/data-sources/${ds.id}/selection`).set(user.auth).send(selection).expect(200);
    expect(saved.body.ingestionStatus).toBe('NeedsReauth');
  });

  it('shows Selected, Partial and None for include and exclude, deep marks included', async () => {
    const ds = await dataSource();
    const root = await folders(ds.id);
    const arch = root.items[0];
    const drawings = (await folders(ds.id, arch.id)).items[0];
    const drawingChildren = await folders(ds.id, drawings.id);
    const details = drawingChildren.items.find((i: { name: string }) => i.name === 'Details');
    const facade = (await folders(ds.id, details.id)).items[0];
    const anchors = await stack.sim.folderId('/Architecture/Drawings/Details/Détails – Façade/Panels/Type A/Anchors');

    const saved = await http()
      .put(`/v1/data-sources/${ds.id}/selection`)
      .set(user.auth)
      .send({ include: [arch.id, anchors], exclude: [details.id] })
      .expect(200);
    expect(saved.body).toMatchObject({
      ingestionStatus: 'Pending',
      selection: { include: [arch.id, anchors], exclude: [details.id] },
    });
    const facadePath = '/Architecture/Drawings/Details/Détails – Façade';
    const [panels, typeA] = [
      await stack.sim.folderId(`${facadePath}/Panels`),
      await stack.sim.folderId(`${facadePath}/Panels/Type A`),
    ];
    expect(saved.body.selectionMarks).toEqual([
      { folderId: arch.id, mode: 'include', ancestorIds: [], name: 'Architecture' },
      {
        folderId: anchors,
        mode: 'include',
        ancestorIds: [arch.id, drawings.id, details.id, facade.id, panels, typeA],
        name: 'Anchors',
      },
      { folderId: details.id, mode: 'exclude', ancestorIds: [arch.id, drawings.id], name: 'Details' },
    ]);

    const byName = (page: { items: Array<{ name: string; selection: string }> }) =>
      Object.fromEntries(page.items.map((i) => [i.name, i.selection]));
    expect(byName(await folders(ds.id))).toEqual({ Architecture: 'Partial', Structural: 'None', MEP: 'None' });
    expect(byName(await folders(ds.id, drawings.id))).toEqual({
      Details: 'Partial',
      'Level 1': 'Selected',
      'Level 2': 'Selected',
      Sections: 'Selected',
    });
    expect(byName(await folders(ds.id, details.id))).toEqual({ 'Détails – Façade': 'Partial' });
    expect(byName(await folders(ds.id, facade.id))).toEqual({ Panels: 'Partial' });

    const cleared = await select(ds.id, []);
    expect(cleared.body.ingestionStatus).toBe('NotConfigured');
  });

  it('refuses unknown folders and a folder both included and excluded', async () => {
    const ds = await dataSource();
    const unknown = await http()
      .put(`/v1/data-sources/${ds.id}/selection`)
      .set(user.auth)
      .send({ include: ['no-such-folder'], exclude: [] })
      .expect(400);
    expect(unknown.body.code).toBe('UNKNOWN_FOLDER');
    const arch = (await folders(ds.id)).items[0].id;
    const both = await http()
      .put(`/v1/data-sources/${ds.id}/selection`)
      .set(user.auth)
      .send({ include: [arch], exclude: [arch] })
      .expect(400);
    expect(both.body.code).toBe('CONFLICTING_SELECTION');
  });

  it('stores nothing of a create or a change whose selection is refused', async () => {
    const project = randomUUID();
    const listed = async () =>
      (await http().get(`/v1/projects/${project}/data-sources`).set(admin.auth).expect(200)).body;
    // An admin's inline credential is a tenant-wide one: listed, so its absence shows.
    const refused = await http()
      .post(`/v1/projects/${project}/data-sources`)
      .set(admin.auth)
      .send({
        name: 'Docs',
        credential: {
          name: 'Own',
          type: 'DocumentSystem',
          instanceUrl: stack.sim.url,
          ...SEED_USERS.alice,
          scope: 'Tenant',
        },
        connectionId: stack.connections.connect(admin),
        selection: { include: ['no-such-folder'], exclude: [] },
      })
      .expect(400);
    expect(refused.body.code).toBe('UNKNOWN_FOLDER');
    expect(await listed()).toEqual([]);
    const own = (await http().get('/v1/credentials').set(admin.auth).expect(200)).body;
    expect(own.filter((c: { name: string }) => c.name === 'Own')).toEqual([]);

    const ds = await dataSource();
    const arch = (await folders(ds.id)).items[0].id;
    await select(ds.id, [arch]);
    const before = (await http().get(`/v1/data-sources/${ds.id}`).set(user.auth).expect(200)).body;
    for (const change of [
      { name: 'Renamed', selection: { include: ['no-such-folder'], exclude: [] } },
      {
        name: 'Renamed',
        credentialId: await credential(SEED_USERS.bob),
        selection: { include: ['no-such-folder'], exclude: [] },
      },
    ]) {
      await http().patch(`/v1/data-sources/${ds.id}`).set(user.auth).send(change).expect(400);
      expect((await http().get(`/v1/data-sources/${ds.id}`).set(user.auth).expect(200)).body).toEqual(before);
    }
  });

  it('discards the selection when the credential changes', async () => {
    const ds = await dataSource();
    const arch = (await folders(ds.id)).items[0].id;
    await select(ds.id, [arch]);
    const changed = await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ credentialId: await credential(SEED_USERS.bob) })
      .expect(200);
    expect(changed.body).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
    const renamed = await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ name: 'Renamed', schedule: { intervalMinutes: 60 } })
      .expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', schedule: { intervalMinutes: 60 } });
  });

  it("syncs a selection sent with a new credential under its folders' paths; a refused one keeps the old paths", async () => {
    const ds = await dataSource();
    const [workgroup] = (await folders(ds.id)).items;
    const [sub] = (await folders(ds.id, workgroup.id)).items;
    const paths = async () =>
      (await stack.sut.db.query('SELECT path FROM connector.documents WHERE "dataSourceId" = $1', [ds.id])).map(
        (d: { path: string }) => d.path,
      );
    // A refused change leaves what the selection's sync needs: its folders' places.
    await select(ds.id, [sub.id]);
    await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ credentialId: await credential(SEED_USERS.bob), selection: { include: ['no-such-folder'], exclude: [] } })
      .expect(400);
    expect(await syncToEnd(stack.sut.app, user, ds.id)).toMatchObject({ status: 'Succeeded' });
    expect((await paths()).length).toBeGreaterThan(0);
    for (const path of await paths()) expect(path.startsWith(`${sub.path}/`)).toBe(true);

    await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ credentialId: await credential(), selection: { include: [sub.id], exclude: [] } })
      .expect(200);
    expect(await syncToEnd(stack.sut.app, user, ds.id)).toMatchObject({ status: 'Succeeded' });
    for (const path of await paths()) expect(path.startsWith(`${sub.path}/`)).toBe(true);
  });

  it('discards the selection when another document-system identity authorizes', async () => {
    const ds = await dataSource();
    const arch = (await folders(ds.id)).items[0].id;
    await select(ds.id, [arch]);
    const sameUser = await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ connectionId: stack.connections.connect(user) })
      .expect(200);
    expect(sameUser.body.selection.include).toEqual([arch]);
    const other = await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ connectionId: stack.connections.connect(user, 'doc-user-2') })
      .expect(200);
    expect(other.body.selection.include).toEqual([arch]); // no subject was known before: kept
    const third = await http()
      .patch(`/v1/data-sources/${ds.id}`)
      .set(user.auth)
      .send({ connectionId: stack.connections.connect(user, 'doc-user-3') })
      .expect(200);
    expect(third.body).toMatchObject({ ingestionStatus: 'NotConfigured', selection: { include: [], exclude: [] } });
  });

  it('explains an account without workgroup access, and maps wrong logins to 422', async () => {
    const empty = await dataSource(SEED_USERS.nobody);
    expect(await folders(empty.id)).toEqual({ items: [], nextCursor: null, notice: NO_WORKGROUPS_NOTICE });
    const broken = await dataSource({ ...SEED_USERS.alice, password: 'nope' });
    const res = await http().get(`/v1/data-sources/${broken.id}/folders`).set(user.auth).expect(422);
    expect(res.body).toMatchObject({ code: 'CREDENTIALS_INVALID', message: 'Credentials are invalid' });
  });

  it('stores refreshed tokens while browsing: an expired token is refreshed once and browsing goes on', async () => {
    const ds = await dataSource();
    await folders(ds.id);
    const before = stack.connections.refreshes;
    await stack.sim.admin.post('/expire', { accessTokens: true });
    expect((await folders(ds.id)).items).toHaveLength(3);
    expect(stack.connections.refreshes).toBe(before + 1);
  });

  it('lets members and tenant admins in, answers 404 to everyone else', async () => {
    const ds = await dataSource();
    const outsider = await testCaller({ tenantId: admin.tenantId });
    await http().get(`/v1/data-sources/${ds.id}`).set(outsider.auth).expect(404);
    await http().get(`/v1/data-sources/${ds.id}/folders`).set(outsider.auth).expect(404);
    expect(
      (await http().get(`/v1/projects/${projectId}/data-sources`).set(outsider.auth).expect(200)).body.map(
        (d: { id: string }) => d.id,
      ),
    ).not.toContain(ds.id);
    await http().get(`/v1/data-sources/${ds.id}`).set(admin.auth).expect(200);
    await http().post(`/v1/data-sources/${ds.id}/members`).set(user.auth).send({ userId: outsider.userId }).expect(201);
    await http().get(`/v1/data-sources/${ds.id}`).set(outsider.auth).expect(200);
    await http().delete(`/v1/data-sources/${ds.id}/members/${outsider.userId}`).set(user.auth).expect(204);
    await http().get(`/v1/data-sources/${ds.id}`).set(outsider.auth).expect(404);
    const stranger = await testCaller({ roles: ['admin'] });
    await http().get(`/v1/data-sources/${ds.id}`).set(stranger.auth).expect(404);
  });

  it('refuses a member whose user id is "." or "..", which no URL path can name; other dotted ids come and go', async () => {
    const ds = await dataSource();
    for (const userId of ['.', '..']) {
      const res = await http().post(`/v1/data-sources/${ds.id}/members`).set(user.auth).send({ userId }).expect(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'userId', problems: [expect.stringContaining('cannot be "." or ".."')] }],
      });
    }
    await http().post(`/v1/data-sources/${ds.id}/members`).set(user.auth).send({ userId: 'first.last' }).expect(201);
    await http().delete(`/v1/data-sources/${ds.id}/members/first%2Elast`).set(user.auth).expect(204);
    const members = await http().get(`/v1/data-sources/${ds.id}/members`).set(user.auth).expect(200);
    expect(members.body.map((m: { userId: string }) => m.userId)).toEqual([user.userId]);
  });

  it('refuses to delete a credential in use with 409 CREDENTIAL_IN_USE', async () => {
    const ds = await dataSource();
    const res = await http().delete(`/v1/credentials/${ds.credentialId}`).set(admin.auth).expect(409);
    expect(res.body.code).toBe('CREDENTIAL_IN_USE');
  });

  it.each([
    ['PATCH', (id: string) => http().patch(`/v1/data-sources/${id}`).send({ name: 'Renamed' })],
    [
      'PUT selection',
      (id: string) => http().put(`/v1/data-sources/${id}/selection`).send({ include: [], exclude: [] }),
    ],
    ['POST members', (id: string) => http().post(`/v1/data-sources/${id}/members`).send({ userId: randomUUID() })],
    ['POST sync', (id: string) => http().post(`/v1/data-sources/${id}/sync`)],
  ])('answers 404 to a %s that meets the data source being deleted', async (_, send) => {
    const ds = await dataSource();
    const arch = (await folders(ds.id)).items[0].id;
    await select(ds.id, [arch]);
    const deleting = stack.sut.db.createQueryRunner();
    await deleting.connect();
    await deleting.startTransaction();
    try {
      const [{ pid }] = await deleting.query(`SELECT pg_backend_pid() AS pid`);
      await deleting.query(`DELETE FROM connector.data_sources WHERE id = $1`, [ds.id]);
      const request = send(ds.id)
        .set(user.auth)
        .then((res) => res);
      await eventually(
        async () =>
          (await stack.sut.db.query(`SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [pid]))
            .length > 0,
      );
      await deleting.commitTransaction();
      const res = await request;
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'DATA_SOURCE_NOT_FOUND' });
    } finally {
      if (deleting.isTransactionActive) await deleting.rollbackTransaction();
      await deleting.release();
    }
  });

  it("deletes a data source while a text is being saved into one of its documents: PostgreSQL's deadlock victim is tried again, not answered 503", async () => {
    const ds = await dataSource();
    await stack.sut.db.query(
      `INSERT INTO connector.documents (id, "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, "contentSha256", "extractionStatus", text, "lastSeenRunId")
       VALUES (gen_random_uuid(), $1, $2, 'f1', 'root', 'a.txt', '/a.txt', 'text/plain', 2, md5('hi'), 'Pending', '', gen_random_uuid())`,
      [admin.tenantId, ds.id],
    );
    // A text's save locks its document, then its data source's row (via its run): the other order from a deletion.
    const saving = stack.sut.db.createQueryRunner();
    await saving.connect();
    await saving.startTransaction();
    try {
      // The deletion's own check finds the deadlock (1 s), never this session's, however slow the machine.
      await saving.query(`SET LOCAL deadlock_timeout = '60s'`);
      const [{ pid }] = await saving.query(`SELECT pg_backend_pid() AS pid`);
      await saving.query(`UPDATE connector.documents SET "extractionStatus" = 'Succeeded' WHERE "dataSourceId" = $1`, [
        ds.id,
      ]);
      const deleting = http()
        .delete(`/v1/data-sources/${ds.id}`)
        .set(user.auth)
        .then((res) => res);
      await eventually(
        async () =>
          (
            await stack.sut.db.query(
              `SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query ILIKE 'DELETE FROM "connector"."data_sources"%'`,
              [pid],
            )
          ).length > 0,
      );
      await saving.query(`UPDATE connector.data_sources SET "updatedAt" = now() WHERE id = $1`, [ds.id]);
      await saving.commitTransaction();
      expect((await deleting).status).toBe(204);
    } finally {
      if (saving.isTransactionActive) await saving.rollbackTransaction();
      await saving.release();
    }
    await http().get(`/v1/data-sources/${ds.id}`).set(user.auth).expect(404);
  });
});
