import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { SimulatorConnections } from './support/simulator-connections';

/** Connections whose holdForUse (inside the data source's transaction) waits while a gate is closed. */
class GatedConnections extends SimulatorConnections {
  gate: Promise<void> | null = null;
  reached: () => void = () => undefined;

  override async holdForUse(): Promise<void> {
    if (!this.gate) return;
    this.reached();
    await this.gate;
  }
}

/**
 * A data source's credential is checked before its transaction, and held (checked again) inside it, after its
 * connection. Here the credential is deleted, or narrowed to another project, while the data source's transaction
 * waits on its connection: the change goes first, and the data source is refused as it would have been before it
 * (it was 500 INTERNAL_ERROR when the foreign key refused a deleted credential, or saved with one of another project).
 */
describe('A credential deleted or narrowed while a data source is being pointed at it', () => {
  const stack = connectorOnSimulator({ connections: (sim) => new GatedConnections(sim) });
  let admin: TestCaller;
  let creator: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    creator = await testCaller({ tenantId: admin.tenantId });
  });

  const login = () => ({
    name: 'Sim',
    type: 'DocumentSystem',
    instanceUrl: stack.sim.url,
    username: SEED_USERS.alice.username,
  });
  const credential = async () =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ ...login(), password: SEED_USERS.alice.password, scope: 'Tenant' })
        .expect(201)
    ).body.id as string;
  const createIn = (projectId: string, credentialId: string) =>
    http()
      .post(`/v1/projects/${projectId}/data-sources`)
      .set(creator.auth)
      .send({ name: 'Docs', credentialId, connectionId: stack.connections.connect(creator) });

  /** Runs `call` until its transaction holds the connection, runs `change` meanwhile, then lets `call` go on. */
  async function during(call: () => request.Test, change: () => request.Test) {
    let open!: () => void;
    stack.connections.gate = new Promise<void>((resolve) => (open = resolve));
    const reached = new Promise<void>((resolve) => (stack.connections.reached = resolve));
    const pending = call().then((res) => res);
    await reached;
    const changed = await change();
    stack.connections.gate = null;
    open();
    const res = await pending;
    return { changed: changed.status, status: res.status, code: res.body.code };
  }
  const deleting = (credentialId: string) => () => http().delete(`/v1/credentials/${credentialId}`).set(admin.auth);

  it('creating a data source with a credential deleted meanwhile answers 404 CREDENTIAL_NOT_FOUND', async () => {
    const credentialId = await credential();
    const outcome = await during(() => createIn(randomUUID(), credentialId), deleting(credentialId));
    expect(outcome).toEqual({ changed: 204, status: 404, code: 'CREDENTIAL_NOT_FOUND' });
  });

  it('moving a data source to a credential deleted meanwhile answers 404 CREDENTIAL_NOT_FOUND', async () => {
    const ds = await createIn(randomUUID(), await credential()).expect(201);
    const second = await credential();
    const outcome = await during(
      () =>
        http()
          .patch(`/v1/data-sources/${ds.body.id}`)
          .set(creator.auth)
          .send({ credentialId: second, connectionId: stack.connections.connect(creator) }),
      deleting(second),
    );
    expect(outcome).toEqual({ changed: 204, status: 404, code: 'CREDENTIAL_NOT_FOUND' });
  });

  it('creating a data source with a credential narrowed to another project meanwhile answers 400 CREDENTIAL_SCOPE_MISMATCH', async () => {
    const credentialId = await credential();
    const narrowing = () =>
      http()
        .put(`/v1/credentials/${credentialId}`)
        .set(admin.auth)
        .send({ ...login(), scope: 'Project', projectId: randomUUID() });
    const outcome = await during(() => createIn(randomUUID(), credentialId), narrowing);
    expect(outcome).toEqual({ changed: 200, status: 400, code: 'CREDENTIAL_SCOPE_MISMATCH' });
  });
});
