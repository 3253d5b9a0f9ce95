import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

describe('Query parameters: one name per meaning, unknown ones refused', () => {
  const stack = connectorOnSimulator();
  let user: TestCaller;
  let dataSourceId: string;
  const projectId = randomUUID();
  const { http } = stack;

  beforeAll(async () => {
    user = await testCaller({ roles: ['admin'] });
    const credential = await http()
      .post('/v1/credentials')
      .set(user.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(user.auth)
      .send({ name: 'Docs', credentialId: credential.body.id, connectionId: stack.connections.connect(user) })
      .expect(201);
    dataSourceId = ds.body.id;
    await http()
      .put(`/v1/data-sources/${dataSourceId}/selection`)
      .set(user.auth)
      .send({ include: [await stack.sim.folderId('/Structural/Specifications')], exclude: [] })
      .expect(200);
    await syncToEnd(stack.sut.app, user, dataSourceId);
  });

  const tree = (query: Record<string, string>) =>
    http().get(`/v1/data-sources/${dataSourceId}/tree`).query(query).set(user.auth);

  function expectValidationFailed(res: request.Response, field: string) {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field })],
    });
  }

  it('answers the tree for parentId as for folderId, and 400 when both are given and differ', async () => {
    const roots = (await tree({}).expect(200)).body;
    const structural = roots.folders.find((f: { name: string }) => f.name === 'Structural');
    const byFolderId = (await tree({ folderId: structural.id }).expect(200)).body;
    expect(byFolderId.folders.map((f: { name: string }) => f.name)).toEqual(['Specifications']);
    expect((await tree({ parentId: structural.id }).expect(200)).body).toEqual(byFolderId);
    expect((await tree({ folderId: structural.id, parentId: structural.id }).expect(200)).body).toEqual(byFolderId);
    expectValidationFailed(await tree({ folderId: structural.id, parentId: byFolderId.folders[0].id }), 'parentId');
  });

  it('refuses an unknown query parameter on the picker, the tree and search with 400 VALIDATION_FAILED', async () => {
    expectValidationFailed(
      await http().get(`/v1/data-sources/${dataSourceId}/folders`).query({ bogus: '1' }).set(user.auth),
      'bogus',
    );
    expectValidationFailed(await tree({ bogus: '1' }), 'bogus');
    expectValidationFailed(
      await http().get(`/v1/projects/${projectId}/search`).query({ q: 'steel', bogus: '1' }).set(user.auth),
      'bogus',
    );
  });

  it.each([['0x10'], ['1e1'], [' 5'], ['5.0'], ['']])(
    'refuses limit=%j (a whole number in decimal digits only) on search, passages and the tree with 400',
    async (limit) => {
      expectValidationFailed(
        await http().get(`/v1/projects/${projectId}/search`).query({ q: 'steel', limit }).set(user.auth),
        'limit',
      );
      expectValidationFailed(
        await http().get(`/v1/projects/${projectId}/passages`).query({ q: 'steel', limit }).set(user.auth),
        'limit',
      );
      expectValidationFailed(await tree({ limit }), 'limit');
      const plain = await http()
        .get(`/v1/projects/${projectId}/search`)
        .query({ q: 'steel', limit: '16' })
        .set(user.auth);
      expect(plain.status).toBe(200);
    },
  );

  it('refuses a query parameter on endpoints that take none, and still accepts the known ones', async () => {
    expectValidationFailed(await http().get(`/v1/data-sources/${dataSourceId}`).query({ _: '1' }).set(user.auth), '_');
    expectValidationFailed(await http().get('/v1/credentials').query({ bogus: '1' }).set(user.auth), 'bogus');
    await http()
      .get(`/v1/data-sources/${dataSourceId}/folders`)
      .query({ parentId: '', cursor: '' })
      .set(user.auth)
      .expect(200);
    await http().get(`/v1/projects/${projectId}/search`).query({ q: 'steel', limit: 5 }).set(user.auth).expect(200);
  });

  it('leaves the OAuth callback and the console open to any query parameter', async () => {
    const callback = await http()
      .get('/v2/OAuth/callback')
      .query({ state: 'gone', iss: 'https://idp', x: '1' })
      .set('Accept', 'application/json');
    expect(callback.body.code).not.toBe('VALIDATION_FAILED');
    await http().get('/console/config.json').query({ v: '1' }).expect(200);
  });
});
