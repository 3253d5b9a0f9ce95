import { randomUUID } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorEnv } from '../src/connector-env';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

/** Every file holds exactly this many bytes, so a bytes limit counts files. */
const FILE_BYTES = 1000;
type Limit = 'SYNC_MAX_FILES' | 'SYNC_MAX_BYTES' | 'SYNC_MAX_DEPTH';

/**
 * CONTRACT.md, "Fair share and limits": a run that reaches SYNC_MAX_FILES, SYNC_MAX_BYTES or SYNC_MAX_DEPTH
 * stops there, keeps what it has, deletes nothing it did not see, and ends PartiallySucceeded with
 * `RUN_LIMIT_REACHED:` naming the limit. The selected folder holds 4 files, its subfolder `level-1` 2, and
 * `level-1/level-2` 2: 8 files, all stored by a first run without limits. The limits are changed on the
 * running app (each page reads them), between runs.
 */
describe('Run limits', () => {
  const stack = connectorOnSimulator();
  let caller: TestCaller;
  let dataSourceId: string;
  const deepFiles: string[] = [];
  const env = () => stack.sut.app.get(ConnectorEnv);
  const defaults = { SYNC_MAX_FILES: 0, SYNC_MAX_BYTES: 0, SYNC_MAX_DEPTH: 0 };
  const documents = async (): Promise<number> =>
    (
      await stack.sut.db.query(`SELECT count(*)::int AS n FROM connector.documents WHERE "dataSourceId" = $1`, [
        dataSourceId,
      ])
    )[0].n;
  const syncWith = async (limit: Limit, value: number) => {
    env()[limit] = value;
    try {
      return await syncToEnd(stack.sut.app, caller, dataSourceId);
    } finally {
      env()[limit] = defaults[limit];
    }
  };

  beforeAll(async () => {
    for (const name of Object.keys(defaults) as Limit[]) defaults[name] = env()[name];
    caller = await testCaller({ roles: ['admin'] });
    const root = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `limits-${randomUUID()}`,
      })
    ).data.id;
    const level1 = (await stack.sim.admin.post('/folders', { parentId: root, name: 'level-1' })).data.id;
    const level2 = (await stack.sim.admin.post('/folders', { parentId: level1, name: 'level-2' })).data.id;
    const put = async (parentId: string, name: string) =>
      (await stack.sim.admin.post('/files', { parentId, name, text: `${name} `.padEnd(FILE_BYTES, 'x') })).data
        .id as string;
    for (let i = 0; i < 4; i++) await put(root, `top-${i}.txt`);
    for (let i = 0; i < 2; i++) await put(level1, `middle-${i}.txt`);
    for (let i = 0; i < 2; i++) deepFiles.push(await put(level2, `deep-${i}.txt`));
    dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [root],
    });
    const first = await syncToEnd(stack.sut.app, caller, dataSourceId);
    expect(first).toMatchObject({ status: 'Succeeded', counts: { discovered: 8, added: 8 } });
  }, 120_000);

  it('stops at SYNC_MAX_FILES: PartiallySucceeded, 3 files seen, the 5 it did not see kept', async () => {
    const run = await syncWith('SYNC_MAX_FILES', 3);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 3, deleted: 0 } });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_FILES \(3 files\)/);
    expect(await documents()).toBe(8);
  });

  it('stops at SYNC_MAX_BYTES: PartiallySucceeded, the files that fit seen, the rest kept', async () => {
    const run = await syncWith('SYNC_MAX_BYTES', 2.5 * FILE_BYTES);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 2, deleted: 0 } });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_BYTES \(2500 bytes\)/);
    expect(await documents()).toBe(8);
  });

  it('lists no deeper than SYNC_MAX_DEPTH, and a following run deletes nothing it did not see', async () => {
    const run = await syncWith('SYNC_MAX_DEPTH', 1);
    expect(run).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 6, unchanged: 6, deleted: 0 } });
    expect(run.error).toMatch(/^RUN_LIMIT_REACHED: SYNC_MAX_DEPTH \(1 folder levels\)/);
    expect(await documents()).toBe(8);

    // A file below the limit goes away: a limited run does not see it, so it does not delete it.
    await stack.sim.admin.delete(`/nodes/${deepFiles[0]}`);
    const limited = await syncWith('SYNC_MAX_DEPTH', 1);
    expect(limited).toMatchObject({ status: 'PartiallySucceeded', counts: { discovered: 6, deleted: 0 } });
    expect(await documents()).toBe(8);
    // Without the limit the run sees everything again, and deletes what is gone.
    const whole = await syncToEnd(stack.sut.app, caller, dataSourceId);
    expect(whole).toMatchObject({ status: 'Succeeded', error: null, counts: { discovered: 7, deleted: 1 } });
    expect(await documents()).toBe(7);
  });
});
