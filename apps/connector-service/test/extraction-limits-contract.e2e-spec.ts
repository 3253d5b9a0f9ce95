import { randomBytes } from 'node:crypto';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable } from './support/sync-helpers';

const MiB = 1024 * 1024;

/**
 * CONTRACT.md, "Limits": text extraction of one file runs within a time limit and a memory limit, and keeps at
 * most MAX_TEXT_BYTES of text; past either limit the document is `Failed` with the reason and the run goes on.
 */
describe('Text extraction past its limits', () => {
  const stack = connectorOnSimulator({ env: { EXTRACTION_WORKERS: 1 } });
  const { http } = stack;
  let caller: TestCaller;

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
  });

  it('past either limit the document is Failed with the reason and the run goes on: a text file far over MAX_TEXT_BYTES', async () => {
    const folder = await stack.sim.admin.post('/folders', {
      parentId: await stack.sim.folderId('/Structural'),
      name: `f-${randomBytes(4).toString('hex')}`,
    });
    await stack.sim.admin.post('/files', {
      parentId: folder.data.id,
      name: 'site-log.txt',
      generate: { format: 'text', size: 51 * MiB },
    });
    await stack.sim.admin.post('/files', { parentId: folder.data.id, name: 'note.txt', text: 'steel beams' });
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folder.data.id],
    });

    const run = await syncToSearchable(stack.sut.app, caller, dataSourceId);

    expect({ status: run.status, added: run.counts.added }).toEqual({ status: 'Succeeded', added: 2 });
    const [bigFile] = (await stack.sut.db.query(
      `SELECT id FROM connector.documents WHERE "dataSourceId" = $1 AND name = 'site-log.txt'`,
      [dataSourceId],
    )) as Array<{ id: string }>;
    const doc = (await http().get(`/v1/documents/${bigFile.id}`).set(caller.auth).expect(200)).body;
    expect(doc.extraction).toEqual({ status: 'Failed', error: expect.stringMatching(/larger than/i) });
  });
});
