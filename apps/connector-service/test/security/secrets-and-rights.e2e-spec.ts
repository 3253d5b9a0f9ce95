import { randomUUID } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { providerBody } from '../support/oauth-flow';
import { connectorOnSimulator } from '../support/connector-on-simulator';
import { syncToEnd } from '../support/sync-helpers';

describe('Secrets stay with their address; data-source rights; bounded walks and pages', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let creator: TestCaller;
  let member: TestCaller;
  let outsider: TestCaller;
  const projectId = randomUUID();
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    creator = await testCaller({ tenantId: admin.tenantId });
    member = await testCaller({ tenantId: admin.tenantId });
    outsider = await testCaller({ tenantId: admin.tenantId });
  });

  const credentialBody = (overrides: Record<string, unknown> = {}) => ({
    name: 'Sim',
    type: 'DocumentSystem',
    instanceUrl: stack.sim.url,
    ...SEED_USERS.alice,
    scope: 'Tenant',
    ...overrides,
  });
  const withoutPassword = (overrides: Record<string, unknown> = {}) => ({
    ...credentialBody(overrides),
    password: undefined,
  });

  async function tenantCredential(): Promise<string> {
    return (await http().post('/v1/credentials').set(admin.auth).send(credentialBody()).expect(201)).body.id;
  }

  async function dataSource(owner = creator, body: Record<string, unknown> = {}) {
    const res = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(owner.auth)
      .send({
        name: 'Docs',
        connectionId: stack.connections.connect(owner),
        ...(body.credential ? {} : { credentialId: await tenantCredential() }),
        ...body,
      })
      .expect(201);
    return res.body as { id: string; credentialId: string };
  }

  describe('a stored secret never goes to an address it was not entered for', () => {
    it.each([
      ['instanceUrl', { instanceUrl: 'http://127.0.0.1:1' }],
      ['username', { username: 'bob' }],
    ])('credential PUT changing %s without the password: 400 SECRET_REQUIRED; with it: 200', async (field, change) => {
      const id = await tenantCredential();
      const refused = await http()
        .put(`/v1/credentials/${id}`)
        .set(admin.auth)
        .send(withoutPassword(change))
        .expect(400);
      expect(refused.body).toMatchObject({ code: 'SECRET_REQUIRED', details: [{ field: 'password' }] });
      expect(refused.body.message).toContain(field);
      expect((await http().get(`/v1/credentials/${id}`).set(admin.auth).expect(200)).body).toMatchObject({
        instanceUrl: stack.sim.url,
        username: 'alice',
      });
      await http()
        .put(`/v1/credentials/${id}`)
        .set(admin.auth)
        .send(credentialBody({ ...change, password: 'entered-for-the-new-address' }))
        .expect(200);
    });

    it('credential PUT keeping address and username may omit the password (a trailing slash is the same address)', async () => {
      const id = await tenantCredential();
      await http()
        .put(`/v1/credentials/${id}`)
        .set(admin.auth)
        .send(withoutPassword({ name: 'Renamed', instanceUrl: `${stack.sim.url}/` }))
        .expect(200);
    });

    it.each([
      ['tokenEndpoint', (url: string) => ({ tokenEndpoint: `${url}/elsewhere/token` })],
      ['revokeEndpoint', (url: string) => ({ revokeEndpoint: `${url}/oauth/revoke` })],
    ])('provider PUT changing %s without clientSecret: 400 SECRET_REQUIRED; with it: 200', async (field, change) => {
      const created = (
        await http().post('/v2/OAuth/providers').set(admin.auth).send(providerBody(stack.sim)).expect(201)
      ).body;
      const refused = await http()
        .put(`/v2/OAuth/providers/${created.id}`)
        .set(admin.auth)
        .send({ ...providerBody(stack.sim, change(stack.sim.url)), clientSecret: undefined })
        .expect(400);
      expect(refused.body).toMatchObject({ code: 'SECRET_REQUIRED', details: [{ field: 'clientSecret' }] });
      expect(refused.body.message).toContain(field);
      expect((await http().get(`/v2/OAuth/providers/${created.id}`).set(admin.auth).expect(200)).body).toMatchObject({
        tokenEndpoint: created.tokenEndpoint,
        revokeEndpoint: '',
      });
      const saved = await http()
        .put(`/v2/OAuth/providers/${created.id}`)
        .set(admin.auth)
        .send(providerBody(stack.sim, { ...change(stack.sim.url), clientSecret: 'entered-for-the-new-endpoint' }))
        .expect(200);
      expect(saved.body).toMatchObject({ ...change(stack.sim.url), secretVersion: 2 });
    });
  });

  describe('managing a data source takes its creator or a tenant admin', () => {
    it('a plain member reads, browses, searches and syncs, but gets 403 DATA_SOURCE_MANAGE_FORBIDDEN for every change', async () => {
      const ds = await dataSource();
      const specs = await stack.sim.folderId('/Architecture/Specifications');
      await http()
        .put(`/v1/data-sources/${ds.id}/selection`)
        .set(creator.auth)
        .send({ include: [specs], exclude: [] })
        .expect(200);
      await http()
        .post(`/v1/data-sources/${ds.id}/members`)
        .set(creator.auth)
        .send({ userId: member.userId })
        .expect(201);

      await http().get(`/v1/data-sources/${ds.id}`).set(member.auth).expect(200);
      await http().get(`/v1/data-sources/${ds.id}/members`).set(member.auth).expect(200);
      expect(
        (await http().get(`/v1/data-sources/${ds.id}/folders`).set(member.auth).expect(200)).body.items,
      ).toHaveLength(3);
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'gypsum', dataSourceId: ds.id })
        .set(member.auth)
        .expect(200);
      expect(await syncToEnd(stack.sut.app, member, ds.id)).toMatchObject({ status: 'Succeeded' });

      const forbidden = [
        http().patch(`/v1/data-sources/${ds.id}`).set(member.auth).send({ name: 'Taken over' }),
        http().put(`/v1/data-sources/${ds.id}/selection`).set(member.auth).send({ include: [], exclude: [] }),
        http().post(`/v1/data-sources/${ds.id}/members`).set(member.auth).send({ userId: outsider.userId }),
        http().delete(`/v1/data-sources/${ds.id}/members/${creator.userId}`).set(member.auth),
        http().delete(`/v1/data-sources/${ds.id}`).set(member.auth),
      ];
      for (const attempt of forbidden) {
        const res = await attempt.expect(403);
        expect(res.body).toMatchObject({ statusCode: 403, code: 'DATA_SOURCE_MANAGE_FORBIDDEN' });
      }
      const after = (await http().get(`/v1/data-sources/${ds.id}`).set(creator.auth).expect(200)).body;
      expect(after).toMatchObject({ name: 'Docs', selection: { include: [specs], exclude: [] } });
      const members = (await http().get(`/v1/data-sources/${ds.id}/members`).set(creator.auth).expect(200)).body.map(
        (m: { userId: string }) => m.userId,
      );
      expect(members.sort()).toEqual([creator.userId, member.userId].sort());
      await http().patch(`/v1/data-sources/${ds.id}`).set(outsider.auth).send({ name: 'x' }).expect(404);
    });

    it('a tenant admin manages any data source of the tenant; the creator stays a member', async () => {
      const ds = await dataSource();
      await http().patch(`/v1/data-sources/${ds.id}`).set(admin.auth).send({ name: 'Renamed by admin' }).expect(200);
      await http()
        .put(`/v1/data-sources/${ds.id}/selection`)
        .set(admin.auth)
        .send({ include: [await stack.sim.folderId('/Structural')], exclude: [] })
        .expect(200);
      await http()
        .post(`/v1/data-sources/${ds.id}/members`)
        .set(admin.auth)
        .send({ userId: member.userId })
        .expect(201);
      await http().delete(`/v1/data-sources/${ds.id}/members/${member.userId}`).set(admin.auth).expect(204);
      const creatorRemoval = await http()
        .delete(`/v1/data-sources/${ds.id}/members/${creator.userId}`)
        .set(admin.auth)
        .expect(409);
      expect(creatorRemoval.body.code).toBe('CREATOR_IS_MEMBER');
      await http().delete(`/v1/data-sources/${ds.id}`).set(admin.auth).expect(204);
      await http().get(`/v1/data-sources/${ds.id}`).set(creator.auth).expect(404);
    });
  });

  describe("a plain user's inline credential belongs to that data source alone", () => {
    it('is answered scope DataSource, hidden from others, refused elsewhere with 404, and deleted with the data source', async () => {
      const ds = await dataSource(creator, { credential: credentialBody({ name: 'My login', scope: 'Tenant' }) });
      const own = (await http().get(`/v1/credentials/${ds.credentialId}`).set(creator.auth).expect(200)).body;
      expect(own).toMatchObject({
        name: 'My login',
        scope: 'DataSource',
        dataSourceId: ds.id,
        passwordConfigured: true,
      });
      expect(
        (await http().get(`/v1/data-sources/${ds.id}/folders`).set(creator.auth).expect(200)).body.items,
      ).toHaveLength(3);

      const seenByOutsider = (await http().get('/v1/credentials').set(outsider.auth).expect(200)).body.map(
        (c: { id: string }) => c.id,
      );
      expect(seenByOutsider).not.toContain(ds.credentialId);
      await http().get(`/v1/credentials/${ds.credentialId}`).set(outsider.auth).expect(404);
      for (const caller of [outsider, creator]) {
        const reuse = await http()
          .post(`/v1/projects/${projectId}/data-sources`)
          .set(caller.auth)
          .send({ name: 'Reuse', credentialId: ds.credentialId, connectionId: stack.connections.connect(caller) })
          .expect(404);
        expect(reuse.body.code).toBe('CREDENTIAL_NOT_FOUND');
      }
      const other = await dataSource(creator);
      await http()
        .patch(`/v1/data-sources/${other.id}`)
        .set(creator.auth)
        .send({ credentialId: ds.credentialId })
        .expect(404);

      const listedToAdmin = (await http().get('/v1/credentials').set(admin.auth).expect(200)).body.find(
        (c: { id: string }) => c.id === ds.credentialId,
      );
      expect(listedToAdmin).toMatchObject({ scope: 'DataSource', dataSourceId: ds.id });
      await http().delete(`/v1/data-sources/${ds.id}`).set(creator.auth).expect(204);
      await http().get(`/v1/credentials/${ds.credentialId}`).set(admin.auth).expect(404);
    });

    it('goes when its data source switches to another credential', async () => {
      const ds = await dataSource(creator, { credential: credentialBody({ name: 'Short-lived login' }) });
      await http()
        .patch(`/v1/data-sources/${ds.id}`)
        .set(creator.auth)
        .send({ credentialId: await tenantCredential() })
        .expect(200);
      await http().get(`/v1/credentials/${ds.credentialId}`).set(admin.auth).expect(404);
    });

    it('is created as sent (tenant-wide) when the caller may manage credentials', async () => {
      const manager = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
      const ds = await dataSource(manager, { credential: credentialBody({ name: 'Shared login' }) });
      expect(
        (await http().get(`/v1/credentials/${ds.credentialId}`).set(outsider.auth).expect(200)).body,
      ).toMatchObject({ scope: 'Tenant' });
    });
  });

  describe('bounds', () => {
    it('refuses a search cursor that is malformed or past the last page with 400 VALIDATION_FAILED', async () => {
      const ds = await dataSource();
      for (const cursor of ['abc', '-1', '999999', '5000']) {
        const res = await http()
          .get(`/v1/projects/${projectId}/search`)
          .query({ q: 'plan', dataSourceId: ds.id, cursor })
          .set(creator.auth)
          .expect(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'plan', dataSourceId: ds.id, cursor: '20' })
        .set(creator.auth)
        .expect(200);
    });

    it('pages the tree: nextCursor until the last page, the same files as one big page', async () => {
      const ds = await dataSource();
      const rfis = await stack.sim.folderId('/Architecture/RFIs');
      const facade = await stack.sim.folderId('/Architecture/Drawings/Details/Détails – Façade');
      await http()
        .put(`/v1/data-sources/${ds.id}/selection`)
        .set(creator.auth)
        .send({ include: [rfis, facade], exclude: [] })
        .expect(200);
      expect(await syncToEnd(stack.sut.app, creator, ds.id)).toMatchObject({ status: 'Succeeded' });
      const tree = (query: Record<string, unknown>) =>
        http().get(`/v1/data-sources/${ds.id}/tree`).query(query).set(creator.auth);

      const whole = (await tree({ folderId: rfis }).expect(200)).body;
      expect(whole.files).toHaveLength(60);
      expect(whole.nextCursor).toBeNull();
      const paged: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = (await tree({ folderId: rfis, limit: 25, ...(cursor ? { cursor } : {}) }).expect(200)).body;
        expect(page.files.length).toBeLessThanOrEqual(25);
        paged.push(...page.files.map((f: { documentId: string }) => f.documentId));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(paged).toEqual(whole.files.map((f: { documentId: string }) => f.documentId));

      const foldersFirst = (await tree({ folderId: facade, limit: 1 }).expect(200)).body;
      expect([foldersFirst.folders.map((f: { name: string }) => f.name), foldersFirst.files]).toEqual([['Panels'], []]);
      const thenFiles = (await tree({ folderId: facade, limit: 1, cursor: foldersFirst.nextCursor }).expect(200)).body;
      expect([thenFiles.folders, thenFiles.files.map((f: { name: string }) => f.name), thenFiles.nextCursor]).toEqual([
        [],
        ['Façade elevations.md'],
        null,
      ]);

      for (const query of [{ cursor: 'not-a-cursor' }, { limit: 0 }, { limit: 100000 }]) {
        expect((await tree({ folderId: rfis, ...query }).expect(400)).body.code).toBe('VALIDATION_FAILED');
      }
    });

    it('answers 404 FOLDER_NOT_FOUND for an unseen parentId after a bounded walk of the document system', async () => {
      const ds = await dataSource();
      const submittals = await stack.sim.folderId('/Architecture/Submittals');
      for (let i = 0; i < 120; i++)
        await stack.sim.admin.post('/folders', { parentId: submittals, name: `Package ${String(i).padStart(3, '0')}` });
      await stack.sim.admin.post('/stats/reset');
      const res = await http()
        .get(`/v1/data-sources/${ds.id}/folders`)
        .query({ parentId: 'folder-nobody-has-seen' })
        .set(creator.auth)
        .expect(404);
      expect(res.body.code).toBe('FOLDER_NOT_FOUND');
      const calls: Record<string, number> = (await stack.sim.admin.get('/stats')).data.calls;
      expect(calls['GET /api/v1/folders/:id/children'] ?? 0).toBeLessThanOrEqual(50);
    });
  });
});
