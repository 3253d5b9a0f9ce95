import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { SelectionService } from '../src/data-sources/selection/selection.service';
import { connectorOnSimulator } from './support/connector-on-simulator';

/**
 * Two changes of one data source at once. A selection is resolved against the data source's credential (slow:
 * document-system calls) and saved afterwards; a change of credential that lands meanwhile discards the
 * selection. The selection must not be saved as resolved under the old credential: no order of the two
 * requests one after the other leaves a selection of folders the new credential cannot see.
 */
describe('Concurrent changes of one data source', () => {
  const stack = connectorOnSimulator();
  let admin: TestCaller;
  let user: TestCaller;
  let resolving: { reached: () => void; gate: Promise<void> } | null = null;
  const { http } = stack;

  beforeAll(async () => {
    admin = await testCaller({ roles: ['admin'] });
    user = await testCaller({ tenantId: admin.tenantId });
    // A selection resolved, not saved yet, waits here once while another change goes first.
    const selection = stack.sut.app.get(SelectionService);
    const resolve = selection.resolve.bind(selection);
    selection.resolve = async (...args) => {
      const marks = await resolve(...args);
      const paused = resolving;
      resolving = null;
      if (paused) {
        paused.reached();
        await paused.gate;
      }
      return marks;
    };
  });

  const credential = async (login: { username: string; password: string }) =>
    (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: stack.sim.url, ...login, scope: 'Tenant' })
        .expect(201)
    ).body.id as string;

  /** Alice's data source (she sees Structural; Bob does not), selecting Architecture. */
  async function aliceSource() {
    const res = await http()
      .post(`/v1/projects/${randomUUID()}/data-sources`)
      .set(user.auth)
      .send({
        name: 'Docs',
        credentialId: await credential(SEED_USERS.alice),
        connectionId: stack.connections.connect(user),
        selection: { include: [await stack.sim.folderId('/Architecture')], exclude: [] },
      })
      .expect(201);
    return res.body.id as string;
  }

  /** Runs `call` until its selection is resolved, runs `change` to its end meanwhile, then lets `call` go on. */
  async function during(call: () => request.Test, change: () => PromiseLike<request.Response>) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const reached = new Promise<void>((resolve) => (resolving = { reached: resolve, gate }));
    const pending = call().then((res) => res);
    await reached;
    const changed = await change();
    open();
    return { changed, res: await pending };
  }

  const toBob = (id: string) => async () =>
    http()
      .patch(`/v1/data-sources/${id}`)
      .set(user.auth)
      .send({ credentialId: await credential(SEED_USERS.bob) });
  const shown = async (id: string) => {
    const { body } = await http().get(`/v1/data-sources/${id}`).set(user.auth).expect(200);
    return { credentialId: body.credentialId, selection: body.selection, ingestionStatus: body.ingestionStatus };
  };
  const DISCARDED = { selection: { include: [], exclude: [] }, ingestionStatus: 'NotConfigured' };
  const selectingBy: Record<string, (id: string, include: string[]) => request.Test> = {
    PATCH: (id, include) =>
      http()
        .patch(`/v1/data-sources/${id}`)
        .send({ selection: { include, exclude: [] } }),
    'PUT selection': (id, include) => http().put(`/v1/data-sources/${id}/selection`).send({ include, exclude: [] }),
  };

  it.each(Object.keys(selectingBy))(
    'a %s of the selection resolved under the old credential keeps no folder the new one cannot see',
    async (how) => {
      const id = await aliceSource();
      const structural = await stack.sim.folderId('/Structural');
      const { changed, res } = await during(() => selectingBy[how](id, [structural]).set(user.auth), toBob(id));
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject(DISCARDED);
      // As if the selection came second: resolved under Bob's credential, which does not see Structural.
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'UNKNOWN_FOLDER' });
      expect(await shown(id)).toEqual({ credentialId: changed.body.credentialId, ...DISCARDED });
    },
  );

  it('a selection saved meanwhile undoes no rename or schedule of the same data source', async () => {
    const id = await aliceSource();
    const structural = await stack.sim.folderId('/Structural');
    const { changed, res } = await during(
      () =>
        http()
          .patch(`/v1/data-sources/${id}`)
          .set(user.auth)
          .send({ selection: { include: [structural], exclude: [] } }),
      () =>
        http()
          .patch(`/v1/data-sources/${id}`)
          .set(user.auth)
          .send({ name: 'Renamed', schedule: { intervalMinutes: 60 } }),
    );
    expect([changed.status, res.status]).toEqual([200, 200]);
    const { body } = await http().get(`/v1/data-sources/${id}`).set(user.auth).expect(200);
    expect(body).toMatchObject({
      name: 'Renamed',
      schedule: { intervalMinutes: 60 },
      selection: { include: [structural], exclude: [] },
      ingestionStatus: 'Pending',
    });
  });
});
