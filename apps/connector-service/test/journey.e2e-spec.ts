import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import request from 'supertest';
import { RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { connect, providerBody, registerClient, TEST_PUBLIC_BASE_URL } from './support/oauth-flow';
import { syncToEnd, waitForExtraction } from './support/sync-helpers';
import { SDK_NODE_NOTICE_OFF } from '../src/blobs/s3-blob-store';

/**
 * The whole connector path with nothing stood in: an admin registers the OAuth connector, a user
 * authorizes it at the document system, picks a workgroup and syncs; the original bytes land in an
 * S3-compatible bucket (BLOB_STORE=s3), and search, retrieval and deletion work from there.
 */
describe('Connector journey: OAuth connection, selection, sync into an S3 bucket, search, delete', () => {
  let sim: RunningSimulator;
  let s3: S3rver;
  let s3Dir: string;
  let bucket: S3Client;
  let sut: ConnectorTestApp;
  let admin: TestCaller;
  let user: TestCaller;
  const projectId = randomUUID();
  const http = () => request(sut.app.getHttpServer());
  const objects = async () =>
    ((await bucket.send(new ListObjectsV2Command({ Bucket: 'documents' }))).Contents ?? []).map((o) => o.Key!);

  beforeAll(async () => {
    sim = await startSimulator();
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    s3Dir = await mkdtemp(join(tmpdir(), 's3rver-'));
    s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: 'documents', configs: [] }],
    });
    const endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
    process.env[SDK_NODE_NOTICE_OFF] ??= 'true'; // as the app's S3 blob store does: no Node 22 notice
    bucket = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    sut = await startConnectorApp({
      env: {
        PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL,
        BLOB_STORE: 's3',
        S3_BUCKET: 'documents',
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: credentials.accessKeyId,
        S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
    });
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
  });
  afterAll(async () => {
    await sut?.close();
    bucket?.destroy();
    await s3?.close();
    await sim?.close();
    await rm(s3Dir, { recursive: true, force: true });
  });

  it('goes from an empty tenant to searchable documents and back to nothing', async () => {
    await registerClient(sim, { clientId: 'journey-client', clientSecrets: ['journey-secret'] });
    const provider = await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId: 'journey-client', clientSecret: 'journey-secret' }))
      .expect(201);
    const connection = await connect(sut, user, provider.body.id);
    const credential = await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    const ds = await http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(user.auth)
      .send({ name: 'Tower A', credentialId: credential.body.id, connectionId: connection.id })
      .expect(201);
    const workgroups = (await http().get(`/v1/data-sources/${ds.body.id}/folders`).set(user.auth).expect(200)).body
      .items;
    const architecture = workgroups.find((w: { name: string }) => w.name === 'Architecture');
    await http()
      .put(`/v1/data-sources/${ds.body.id}/selection`)
      .set(user.auth)
      .send({ include: [architecture.id], exclude: [] })
      .expect(200);

    const run = await syncToEnd(sut.app, user, ds.body.id);
    const simFiles: Array<{ id: string; name: string; size: number; sha256: string }> = (
      await sim.admin.get('/files', { params: { under: architecture.id } })
    ).data;
    expect(run).toMatchObject({ mode: 'Full', status: 'Succeeded', counts: { added: simFiles.length, failed: 0 } });
    expect((await http().get(`/v1/data-sources/${ds.body.id}`).set(user.auth).expect(200)).body.ingestionStatus).toBe(
      'Synced',
    );
    expect((await objects()).filter((key) => /[0-9a-f]{64}$/.test(key)).length).toBeGreaterThan(0);
    await waitForExtraction(sut.app, user, ds.body.id);

    const hits = (
      await http().get(`/v1/projects/${projectId}/search`).query({ q: SEED_PHRASES.pdf }).set(user.auth).expect(200)
    ).body.hits;
    expect(hits[0]).toMatchObject({ name: 'A-501 Wall Sections.pdf', dataSourceId: ds.body.id });
    const content = await http()
      .get(`/v1/documents/${hits[0].documentId}/content`)
      .set(user.auth)
      .buffer(true)
      .parse((res, done) => binary(res as unknown as NodeJS.ReadableStream, done))
      .expect(200);
    const original = simFiles.find((f) => f.name === 'A-501 Wall Sections.pdf')!;
    expect({ sha256: sha256(content.body), size: content.body.length }).toEqual({
      sha256: original.sha256,
      size: original.size,
    });
    expect(content.headers['content-type']).toBe('application/pdf');

    await http().delete(`/v1/data-sources/${ds.body.id}`).set(user.auth).expect(204);
    expect(await objects()).toEqual([]);
  });
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function binary(res: NodeJS.ReadableStream, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}
