import { Client } from 'pg';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * `PUT /v1/credentials/{id}` replaces the credential, the password only when one is sent ("omit it to keep
 * the current one"). Two PUTs at once are applied one after the other: the second keeps the password the
 * first stored, rather than writing back the one it read before the first had finished.
 */
describe('Two PUTs of one credential at once', () => {
  let locker: Client;
  const stack = connectorOnSimulator({ beforeClose: () => locker?.end() });
  let admin: TestCaller;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    locker = new Client({ connectionString: String(stack.sut.env.DATABASE_URL) });
    await locker.connect();
  });

  const login = { type: 'DocumentSystem', username: SEED_USERS.alice.username, scope: 'Tenant' };
  /** Backends of this app's database waiting for a lock (the PUTs, queued behind the locker). */
  const waiting = async () =>
    (
      await locker.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      )
    ).rows[0].count;

  const create = async (username: string, password: string) =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ ...login, name: 'Sim', instanceUrl: stack.sim.url, username, password })
        .expect(201)
    ).body.id as string;
  const put = (id: string, body: Record<string, unknown>) =>
    http()
      .put(`/v1/credentials/${id}`)
      .set(admin.auth)
      .send({ ...login, instanceUrl: stack.sim.url, ...body })
      .then((res) => res);

  /** Sends both PUTs while a lock held elsewhere makes them queue, `first` at the head; then lets them go. */
  async function queued(id: string, first: Record<string, unknown>, second: Record<string, unknown>) {
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM connector.credentials WHERE id = $1 FOR UPDATE', [id]);
    const ahead = put(id, first);
    await eventually(async () => (await waiting()) === 1);
    const behind = put(id, second);
    await eventually(async () => (await waiting()) === 2);
    await locker.query('COMMIT');
    return Promise.all([ahead, behind]);
  }

  const validate = async (id: string) => {
    const res = await http()
      .post(`/v1/credentials/${id}/validate`)
      .set(admin.auth)
      .send({ connectionId: stack.connections.connect(admin) });
    return { status: res.status, body: res.body };
  };

  it('keeps the password one PUT sets when another, sent meanwhile without one, renames the credential', async () => {
    const id = await create('alice', 'an-old-wrong-password');
    const [fixing, renaming] = await queued(
      id,
      { name: 'Sim', password: SEED_USERS.alice.password },
      { name: 'Sim (Tower A)' },
    );
    expect([fixing.status, renaming.status]).toEqual([200, 200]);

    const stored = await http().get(`/v1/credentials/${id}`).set(admin.auth).expect(200);
    expect(stored.body).toMatchObject({ name: 'Sim (Tower A)', username: 'alice', passwordConfigured: true });
    // The password the first PUT set is the one the document system gets.
    expect(await validate(id)).toEqual({ status: 200, body: { valid: true } });
  });

  it('judges a PUT without a password against the login the PUT before it stored: 400 SECRET_REQUIRED', async () => {
    const id = await create('alice', SEED_USERS.alice.password);
    const [moving, renaming] = await queued(
      id,
      { name: 'Sim', ...SEED_USERS.bob },
      { name: 'Sim (Tower A)', username: 'alice' },
    );
    expect(moving.status).toBe(200);
    expect({ status: renaming.status, code: renaming.body.code }).toEqual({ status: 400, code: 'SECRET_REQUIRED' });
    const stored = await http().get(`/v1/credentials/${id}`).set(admin.auth).expect(200);
    expect(stored.body).toMatchObject({ name: 'Sim', username: 'bob' });
    expect(await validate(id)).toEqual({ status: 200, body: { valid: true } });
  });
});
