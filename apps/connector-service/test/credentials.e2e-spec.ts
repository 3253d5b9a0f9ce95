import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { allStoredText, ConnectorTestApp, startConnectorApp } from './support/connector-app';

describe('Document-system credentials', () => {
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  const http = () => request(sut.app.getHttpServer());
  const password = `pw-${randomUUID()}`;
  const body = (overrides: Record<string, unknown> = {}) => ({
    name: 'Acme docs',
    type: 'DocumentSystem',
    instanceUrl: 'https://acme.docs.example.com/',
    username: 'alice',
    password,
    scope: 'Tenant',
    ...overrides,
  });

  beforeAll(async () => {
    sut = await startConnectorApp({ ALLOW_INSECURE_URLS: false });
    admin = await testCaller({ roles: ['admin'] });
  });
  afterAll(() => sut.close());

  it('creates a credential without ever returning the password', async () => {
    const res = await http().post('/v1/credentials').set(admin.auth).send(body()).expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Acme docs',
      type: 'DocumentSystem',
      instanceUrl: 'https://acme.docs.example.com',
      username: 'alice',
      passwordConfigured: true,
      scope: 'Tenant',
      projectId: null,
      createdBy: admin.userId,
      lastValidation: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const listed = await http().get('/v1/credentials').set(admin.auth).expect(200);
    const fetched = await http().get(`/v1/credentials/${res.body.id}`).set(admin.auth).expect(200);
    for (const text of [JSON.stringify(res.body), JSON.stringify(listed.body), JSON.stringify(fetched.body)])
      expect(text).not.toContain(password);
    expect(await allStoredText(sut.db)).not.toContain(password);
  });

  it.each([
    ['a wrong type', { type: 'SharePoint' }, 'type'],
    ['a plain-http instance URL', { instanceUrl: 'http://acme.example.com' }, 'instanceUrl'],
    ['a missing password', { password: undefined }, 'password'],
    ['a Project scope without projectId', { scope: 'Project' }, 'projectId'],
    ['an unknown key', { colour: 'blue' }, 'colour'],
  ])('refuses %s with 400 naming the field', async (_case, overrides, field) => {
    const res = await http().post('/v1/credentials').set(admin.auth).send(body(overrides)).expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each(['constructor', '__proto__', 'prototype'])('refuses a %s key with 400 and stores nothing', async (key) => {
    const name = `proto-${key}-${randomUUID()}`;
    const text = JSON.stringify(body({ name })).replace(/^\{/, `{${JSON.stringify(key)}:{"polluted":true},`);
    const res = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .set('Content-Type', 'application/json')
      .send(text)
      .expect(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ field: key })] });
    const listed = await http().get('/v1/credentials').set(admin.auth).expect(200);
    expect(listed.body.map((c: { name: string }) => c.name)).not.toContain(name);
  });

  it('refuses U+0000 in a name with 400, not 500', async () => {
    const res = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send(body({ name: 'Acme\u0000docs' }))
      .expect(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field: 'name' })],
    });
  });

  it('keeps the password when an update omits it and replaces it when given', async () => {
    const created = await http().post('/v1/credentials').set(admin.auth).send(body()).expect(201);
    const { password: _omit, ...withoutPassword } = body({
      name: 'Renamed',
      scope: 'Project',
      projectId: randomUUID(),
    });
    const updated = await http()
      .put(`/v1/credentials/${created.body.id}`)
      .set(admin.auth)
      .send(withoutPassword)
      .expect(200);
    expect(updated.body).toMatchObject({ name: 'Renamed', scope: 'Project', passwordConfigured: true });
    const newPassword = `rotated-${randomUUID()}`;
    await http()
      .put(`/v1/credentials/${created.body.id}`)
      .set(admin.auth)
      .send(body({ password: newPassword }))
      .expect(200);
    expect(await allStoredText(sut.db)).not.toContain(newPassword);
  });

  it('refuses a null password on update with 400 naming it', async () => {
    const created = await http().post('/v1/credentials').set(admin.auth).send(body()).expect(201);
    const res = await http()
      .put(`/v1/credentials/${created.body.id}`)
      .set(admin.auth)
      .send(body({ password: null }))
      .expect(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [expect.objectContaining({ field: 'password' })],
    });
  });

  it('lets only admins and connector managers write, but any member read', async () => {
    const member = await testCaller({ tenantId: admin.tenantId });
    await http().post('/v1/credentials').set(member.auth).send(body()).expect(403);
    const manager = await testCaller({ tenantId: admin.tenantId, roles: ['oauth-connectors:manage'] });
    const created = await http().post('/v1/credentials').set(manager.auth).send(body()).expect(201);
    await http().get(`/v1/credentials/${created.body.id}`).set(member.auth).expect(200);
    await http().delete(`/v1/credentials/${created.body.id}`).set(member.auth).expect(403);
  });

  it("answers 404 for another tenant's credential, on every verb", async () => {
    const created = await http().post('/v1/credentials').set(admin.auth).send(body()).expect(201);
    const stranger = await testCaller({ roles: ['admin'] });
    const path = `/v1/credentials/${created.body.id}`;
    await http().get(path).set(stranger.auth).expect(404);
    await http().put(path).set(stranger.auth).send(body()).expect(404);
    await http().delete(path).set(stranger.auth).expect(404);
    const list = await http().get('/v1/credentials').set(stranger.auth).expect(200);
    expect(list.body).toEqual([]);
  });

  it('deletes an unused credential', async () => {
    const created = await http().post('/v1/credentials').set(admin.auth).send(body()).expect(201);
    await http().delete(`/v1/credentials/${created.body.id}`).set(admin.auth).expect(204);
    await http().get(`/v1/credentials/${created.body.id}`).set(admin.auth).expect(404);
  });
});
