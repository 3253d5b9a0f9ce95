import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from '../support/data-source-on';
import { connectorOnSimulator } from '../support/connector-on-simulator';
import { syncToSearchable } from '../support/sync-helpers';

type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
/** A request of one path, and the same request of a missing id in its place. */
interface Probe {
  name: string;
  method: Method;
  path: string;
  missing: string;
  body?: object;
}

/**
 * CONTRACT.md: "A non-member gets 404 for the data source, its documents and its search hits", and a resource of
 * another tenant is a 404, never a 403. Every path that shows or changes something of a data source answers a
 * caller who may not read it (never a member, a member since removed, another tenant's admin) exactly as it
 * answers an id that does not exist: same status, same body. A difference would tell them it exists.
 */
describe('A caller who may not read a data source is answered as if it did not exist', () => {
  const stack = connectorOnSimulator();
  const { http } = stack;
  const projectId = randomUUID();
  let creator: TestCaller;
  let member: TestCaller;
  let callers: Array<[string, TestCaller]>;
  let ids: { dataSource: string; run: string; document: string; folder: string };

  beforeAll(async () => {
    creator = await testCaller({ roles: ['oauth-connectors:manage'] });
    member = await testCaller({ tenantId: creator.tenantId });
    const removed = await testCaller({ tenantId: creator.tenantId });
    const dataSource = await dataSourceSelecting(stack.sut.app, stack.sim, creator, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(creator),
      include: [await stack.sim.folderId('/Structural/Specifications')],
      projectId,
    });
    const run = (await syncToSearchable(stack.sut.app, creator, dataSource)).id;
    for (const user of [member, removed])
      await http().post(`/v1/data-sources/${dataSource}/members`).set(creator.auth).send({ userId: user.userId });
    await http().delete(`/v1/data-sources/${dataSource}/members/${removed.userId}`).set(creator.auth).expect(204);
    const [workgroup] = (await http().get(`/v1/data-sources/${dataSource}/tree`).set(member.auth).expect(200)).body
      .folders;
    const specs = (
      await http().get(`/v1/data-sources/${dataSource}/tree`).query({ folderId: workgroup.id }).set(member.auth)
    ).body.folders[0];
    const files = (
      await http().get(`/v1/data-sources/${dataSource}/tree`).query({ folderId: specs.id }).set(member.auth)
    ).body.files;
    ids = { dataSource, run, document: files[0].documentId, folder: specs.id };
    callers = [
      ['a user of the tenant who was never a member', await testCaller({ tenantId: creator.tenantId })],
      ['a member since removed', removed],
      ["another tenant's admin", await testCaller({ roles: ['admin'] })],
    ];
  });

  const probe = (name: string, method: Method, path: (id: string) => string, id: string, body?: object): Probe => ({
    name,
    method,
    path: path(id),
    missing: path(randomUUID()),
    body,
  });

  const reads = (): Probe[] => {
    const { dataSource: ds, run, document: doc, folder } = ids;
    return [
      probe('data source', 'get', (id) => `/v1/data-sources/${id}`, ds),
      probe('members', 'get', (id) => `/v1/data-sources/${id}/members`, ds),
      probe('folder picker', 'get', (id) => `/v1/data-sources/${id}/folders`, ds),
      probe('tree', 'get', (id) => `/v1/data-sources/${id}/tree`, ds),
      probe('tree folder with outcomes', 'get', (id) => `/v1/data-sources/${id}/tree?folderId=${folder}`, ds),
      probe('sync runs', 'get', (id) => `/v1/data-sources/${id}/sync-runs`, ds),
      probe('sync run', 'get', (id) => `/v1/sync-runs/${id}`, run),
      probe('sync run files', 'get', (id) => `/v1/sync-runs/${id}/files`, run),
      probe('sync run events', 'get', (id) => `/v1/sync-runs/${id}/events`, run),
      probe('document', 'get', (id) => `/v1/documents/${id}`, doc),
      probe('document content', 'get', (id) => `/v1/documents/${id}/content`, doc),
      probe('document text', 'get', (id) => `/v1/documents/${id}/text`, doc),
      probe('document text (HEAD)', 'head', (id) => `/v1/documents/${id}/text`, doc),
      probe('search in it', 'get', (id) => `/v1/projects/${projectId}/search?q=seismic&dataSourceId=${id}`, ds),
      probe('passages in it', 'get', (id) => `/v1/projects/${projectId}/passages?q=seismic&dataSourceId=${id}`, ds),
    ];
  };

  const send = (caller: TestCaller, method: Method, path: string, body?: object) => {
    const req = http()[method](path).set(caller.auth);
    return body ? req.send(body) : req;
  };
  /** What a caller can tell from an answer: its status and body (a HEAD has none: its headers then). */
  const answer = async (caller: TestCaller, method: Method, path: string, body?: object) => {
    const res = await send(caller, method, path, body);
    const { 'content-type': type, 'content-length': length } = res.headers;
    return { status: res.status, body: res.body as unknown, ...(method === 'head' ? { type, length } : {}) };
  };

  it('every read path answers its members', async () => {
    for (const { name, method, path } of reads())
      expect({ name, status: (await send(member, method, path)).status }).toEqual({ name, status: 200 });
  });

  it('every read path answers anyone else exactly as it answers a missing id', async () => {
    for (const [who, caller] of callers)
      for (const { name, method, path, missing } of reads()) {
        const expected = await answer(caller, method, missing);
        expect(expected.status).toBe(404);
        expect({ who, name, ...(await answer(caller, method, path)) }).toEqual({ who, name, ...expected });
      }
  });

  it("a removed member's ETag gets a 404, not 304 Not Modified", async () => {
    const path = `/v1/documents/${ids.document}/text`;
    const etag = (await http().get(path).set(member.auth).expect(200)).headers.etag;
    const [, removed] = callers[1];
    await http().get(path).set(member.auth).set('If-None-Match', etag).expect(304);
    await http().get(path).set(removed.auth).set('If-None-Match', etag).expect(404);
  });

  it('finds none of its hits or passages for them in the whole project', async () => {
    for (const what of ['search', 'passages']) {
      const seen = await http().get(`/v1/projects/${projectId}/${what}`).query({ q: 'seismic' }).set(member.auth);
      expect(seen.body.hits ?? seen.body.passages).not.toEqual([]);
      for (const [, caller] of callers) {
        const res = await http().get(`/v1/projects/${projectId}/${what}`).query({ q: 'seismic' }).set(caller.auth);
        expect({ status: res.status, found: res.body.hits ?? res.body.passages }).toEqual({ status: 200, found: [] });
      }
    }
  });

  it('every change answers them as for a missing id (404, not 403) and changes nothing', async () => {
    const { dataSource: ds, run } = ids;
    const changes = [
      probe('sync', 'post', (id) => `/v1/data-sources/${id}/sync`, ds),
      probe('cancel', 'post', (id) => `/v1/sync-runs/${id}/cancel`, run),
      probe('confirm deletions', 'post', (id) => `/v1/sync-runs/${id}/confirm-deletions`, run),
      probe('rename', 'patch', (id) => `/v1/data-sources/${id}`, ds, { name: 'Taken' }),
      probe('selection', 'put', (id) => `/v1/data-sources/${id}/selection`, ds, { include: [], exclude: [] }),
      probe('add member', 'post', (id) => `/v1/data-sources/${id}/members`, ds, { userId: 'someone-else' }),
      probe('remove member', 'delete', (id) => `/v1/data-sources/${id}/members/${member.userId}`, ds),
      probe('delete', 'delete', (id) => `/v1/data-sources/${id}`, ds),
    ];
    for (const [who, caller] of callers)
      for (const { name, method, path, missing, body } of changes) {
        const expected = await answer(caller, method, missing, body);
        expect(expected.status).toBe(404);
        expect({ who, name, ...(await answer(caller, method, path, body)) }).toEqual({ who, name, ...expected });
      }
    const after = (await http().get(`/v1/data-sources/${ds}`).set(member.auth).expect(200)).body;
    expect(after).toMatchObject({ name: 'Specs', ingestionStatus: 'Synced' });
    expect(after.selection.include).toHaveLength(1);
    const runs = (await http().get(`/v1/data-sources/${ds}/sync-runs`).set(member.auth).expect(200)).body;
    expect(runs.map((r: { id: string }) => r.id)).toEqual([run]);
  });

  it('answers 503 NOT_READY, not 404, when the database ends the rights check of a document: "not found" would tell a client to forget it', async () => {
    const locker = new Client({ connectionString: stack.sut.env.DATABASE_URL as string });
    const observer = new Client({ connectionString: stack.sut.env.DATABASE_URL as string });
    await Promise.all([locker.connect(), observer.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE connector.data_source_members IN ACCESS EXCLUSIVE MODE');
      for (const path of [`/v1/documents/${ids.document}`, `/v1/documents/${ids.document}/text`]) {
        const answer = http()
          .get(path)
          .set(member.auth)
          .then((res) => res);
        // The member check waits on the lock: the database ends that statement (a restart, a failover would too).
        let waiting: Array<{ pid: number }> = [];
        for (let i = 0; i < 100 && !waiting.length; i++) {
          waiting = (
            await observer.query(
              `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%data_source_members%'
                 AND pid <> pg_backend_pid()`,
            )
          ).rows;
          if (!waiting.length) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(waiting.length).toBeGreaterThan(0);
        for (const { pid } of waiting) await observer.query('SELECT pg_terminate_backend($1)', [pid]);
        const res = await answer;
        expect({ path, status: res.status, code: res.body?.code }).toEqual({ path, status: 503, code: 'NOT_READY' });
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await Promise.all([locker.end(), observer.end()]);
    }
    await http().get(`/v1/documents/${ids.document}`).set(member.auth).expect(200);
  });
});
