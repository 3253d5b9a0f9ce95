import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable } from './support/sync-helpers';

const FLOOD = 100;
const ROUNDS = 3;
/** About 16 MiB of words that compress little, as extracted text of a large specification would. */
const LARGE_TEXT_SQL = `(SELECT string_agg(md5(i::text), ' ') FROM generate_series(1, 510000) AS i)`;

/** The status of a HEAD of `url` as `caller`, through `agent`. */
function headStatus(url: string, caller: TestCaller, agent: Agent): Promise<number | undefined> {
  return new Promise((resolve, reject) =>
    httpRequest(url, { method: 'HEAD', headers: caller.auth, agent }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode));
    })
      .once('error', reject)
      .end(),
  );
}

/**
 * The API's database connections are one pool per process. One tenant's flood of requests that are heavy on
 * the database (HEAD of a 16 MiB text) must not keep another tenant's small reads waiting behind it.
 */
describe('Database connections shared between tenants', () => {
  const stack = connectorOnSimulator({ env: { EXTRACTION_WORKERS: 1 } });
  let flooder: TestCaller;
  let other: TestCaller;
  let large: string;
  let small: { dataSourceId: string; documentId: string };

  beforeAll(async () => {
    [flooder, other] = await Promise.all([testCaller({ roles: ['admin'] }), testCaller({ roles: ['admin'] })]);
    large = (await synced(flooder)).documentId;
    await stack.sut.db.query(`UPDATE connector.documents SET text = ${LARGE_TEXT_SQL} WHERE id = $1`, [large]);
    small = await synced(other);
  }, 120_000);

  /** A data source of `caller`'s tenant holding one short document, synced; its id and the document's. */
  async function synced(caller: TestCaller) {
    const folder = await stack.sim.admin.post('/folders', {
      parentId: await stack.sim.folderId('/Structural'),
      name: `f-${randomBytes(4).toString('hex')}`,
    });
    await stack.sim.admin.post('/files', { parentId: folder.data.id, name: 'notes.txt', text: 'short' });
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folder.data.id],
    });
    await syncToSearchable(stack.sut.app, caller, dataSourceId);
    const [{ id }] = await stack.sut.db.query(`SELECT id FROM connector.documents WHERE "dataSourceId" = $1`, [
      dataSourceId,
    ]);
    return { dataSourceId, documentId: id as string };
  }

  const { http } = stack;
  const call = (caller: TestCaller, path: string, init: RequestInit = {}) =>
    fetch(`${stack.sut.url}${path}`, { ...init, headers: { ...caller.auth, ...init.headers } });

  /** How long each of `caller`'s small reads took (ms), one after another while `busy` runs. */
  async function readsDuring(busy: Promise<unknown>): Promise<number[]> {
    let done = false;
    void busy.finally(() => (done = true));
    const took: number[] = [];
    const paths = [`/v1/documents/${small.documentId}`, `/v1/data-sources/${small.dataSourceId}`];
    while (!done || took.length < 6) {
      const started = performance.now();
      await http()
        .get(paths[took.length % 2])
        .set(other.auth)
        .expect(200);
      took.push(performance.now() - started);
    }
    return took;
  }

  /** An answer's headers but those of its connection and time. */
  const answerHeaders = (res: Response) =>
    Object.fromEntries([...res.headers].filter(([name]) => !['connection', 'keep-alive', 'date'].includes(name)));

  it("answers another tenant's small reads within a second while one tenant floods HEAD of a large text", async () => {
    // Each on a connection of its own, as many clients would: queued in no client, only in the server.
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const flood = Promise.all(
      Array.from({ length: FLOOD }, async () => {
        const statuses = [];
        for (let i = 0; i < ROUNDS; i++)
          statuses.push(await headStatus(`${stack.sut.url}/v1/documents/${large}/text`, flooder, agent));
        return statuses;
      }),
    );
    const took = await readsDuring(flood);

    expect((await flood).flat()).toEqual(Array(FLOOD * ROUNDS).fill(200));
    expect(Math.max(...took)).toBeLessThan(1_000);
  }, 120_000);

  it('answers HEAD and If-None-Match with the length and ETag of the full answer', async () => {
    await expectSameAnswers();
  }, 120_000);

  it('answers a text written before its measures were kept as it answers one written since', async () => {
    await stack.sut.db.query(
      `UPDATE connector.documents SET "textLength" = NULL, "textJsonBytes" = NULL WHERE id = $1`,
      [large],
    );
    await expectSameAnswers();
  }, 120_000);

  /** HEAD, and GET or HEAD with the ETag, answer with the headers of the full answer, as they always did. */
  async function expectSameAnswers() {
    const textPath = `/v1/documents/${large}/text`;
    const full = await call(flooder, textPath);
    const body = Buffer.from(await full.arrayBuffer());
    const [{ version }] = await stack.sut.db.query(
      `SELECT xmin::text AS version FROM connector.documents WHERE id = $1`,
      [large],
    );
    expect(full.status).toBe(200);
    expect(body.length).toBeGreaterThan(16 * 1024 * 1024);
    expect(Object.fromEntries(full.headers)).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length),
      etag: `W/"${body.length.toString(16)}-${version}"`,
    });

    const head = await call(flooder, textPath, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(answerHeaders(head)).toEqual(answerHeaders(full));

    // Through supertest: fetch sends `Cache-Control: no-cache` with a condition, which asks for the full answer.
    for (const ask of [http().get(textPath), http().head(textPath)]) {
      const fresh = await ask.set({ ...flooder.auth, 'If-None-Match': full.headers.get('etag') as string });
      expect(fresh.status).toBe(304);
      expect(fresh.headers.etag).toBe(full.headers.get('etag'));
      expect(fresh.headers['content-length']).toBeUndefined();
    }
  }
});
