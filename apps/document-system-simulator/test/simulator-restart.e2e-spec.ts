import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axios from 'axios';
import request from 'supertest';
import { eventually, freePort, killChild, RunningSimulator, startChildApp, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from './support/start-simulator';
import { ConnectorTestApp, startConnectorApp } from '../../connector-service/test/support/connector-app';
import {
  connect,
  providerBody,
  registerClient,
  TEST_PUBLIC_BASE_URL,
} from '../../connector-service/test/support/oauth-flow';
import { SEED_USERS } from '../src/store/seed';

describe('The simulator keeps its state across a restart (SIMULATOR_STATE_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-state-'));
  const stateFile = join(dir, 'nested', 'state.json');
  let sim: RunningSimulator;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const http = () => request(sut.app.getHttpServer());
  const restart = async () => {
    const port = Number(new URL(sim.url).port);
    await sim.close();
    sim = await startSimulator({ env: { SIMULATOR_STATE_FILE: stateFile }, port });
  };

  beforeAll(async () => {
    sim = await startSimulator({ env: { SIMULATOR_STATE_FILE: stateFile } });
    sut = await startConnectorApp({ env: { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL } });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps refresh tokens, clients and the document tree: the folder picker works after a restart', async () => {
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    const clientId = `client-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    await registerClient(sim, { clientId, clientSecrets: [secret] });
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret: secret }))
      .expect(201);
    const connection = await connect(sut, user, provider.body.id);
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const dataSource = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(user.auth)
      .send({ name: 'Docs', credentialId: credential.body.id, connectionId: connection.id })
      .expect(201);
    const architecture = await sim.folderId('/Architecture');
    const folder = (await sim.admin.post('/folders', { parentId: architecture, name: 'Added before the restart' }))
      .data;
    const file = (
      await sim.admin.post('/files', { parentId: folder.id, name: 'kept.txt', text: 'still here after the restart' })
    ).data;
    const picker = () =>
      http().get(`/v1/data-sources/${dataSource.body.id}/folders`).query({ parentId: architecture }).set(user.auth);
    expect((await picker().expect(200)).body.items.map((i: { name: string }) => i.name)).toContain(
      'Added before the restart',
    );

    await restart();

    const after = await picker();
    expect([after.status, after.body.code]).toEqual([200, undefined]);
    expect(after.body.items.map((i: { name: string }) => i.name)).toContain('Added before the restart');
    expect((await sim.admin.get('/oauth/stats')).data.tokenCalls.refresh_token).toBe(1); // the stored refresh token worked
    expect((await sim.admin.get('/files', { params: { under: folder.id } })).data).toEqual([
      expect.objectContaining({ id: file.id, name: 'kept.txt', version: 1 }),
    ]);
    const connections = (await http().get('/v2/OAuth/connections').set(user.auth).expect(200)).body;
    expect(connections.find((c: { id: string }) => c.id === connection.id)).toMatchObject({ status: 'Active' });

    await restart(); // the rotated refresh token was kept too
    await sim.admin.post('/expire', { accessTokens: true });
    await picker().expect(200);
  });

  it('writes the state file readable by its owner only, without refresh tokens or client secrets in clear, and generated files by seed', async () => {
    const parentId = await sim.folderId('/Structural');
    const generated = (
      await sim.admin.post('/files', {
        parentId,
        name: 'model-export.txt',
        generate: { format: 'text', size: 5_000_000, seed: 3 },
      })
    ).data;
    await restart();
    const text = readFileSync(stateFile, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ version: 1 });
    expect(statSync(stateFile).mode & 0o077).toBe(0);
    expect(text).not.toMatch(/sim_rt_/);
    expect(text).not.toContain('demo-secret');
    expect(text.length).toBeLessThan(1_000_000);
    expect((await sim.admin.get('/files', { params: { under: parentId } })).data).toContainEqual(
      expect.objectContaining({ id: generated.id, size: 5_000_000 }),
    );
  });

  it('saves a change within a moment, so it survives a killed process (no shutdown to flush it)', async () => {
    const killedState = join(dir, 'killed.json');
    const port = await freePort();
    const child = await startChildApp('apps/document-system-simulator/test/support/run-simulator.ts', {
      PORT: port,
      SIMULATOR_STATE_FILE: killedState,
      LOG_LEVEL: 'silent',
    });
    try {
      const admin = axios.create({ baseURL: `http://127.0.0.1:${port}/admin`, timeout: 10_000 });
      const parentId = (await admin.get('/folders', { params: { path: '/MEP' } })).data.id;
      await admin.post('/files', { parentId, name: 'written before the kill.txt', text: 'kept' });
      await eventually(
        async () => readFileSync(killedState, 'utf8').includes('written before the kill.txt') || undefined,
        5000,
      );
    } finally {
      await killChild(child);
    }
    const after = await startSimulator({ env: { SIMULATOR_STATE_FILE: killedState } });
    try {
      const files = (await after.admin.get('/files', { params: { under: await after.folderId('/MEP') } })).data;
      expect(files.map((f: { name: string }) => f.name)).toContain('written before the kill.txt');
    } finally {
      await after.close();
    }
  });

  it('refuses to start on a state file it cannot read, naming the file', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    await expect(startSimulator({ env: { SIMULATOR_STATE_FILE: broken } })).rejects.toThrow(broken);
  });
});
