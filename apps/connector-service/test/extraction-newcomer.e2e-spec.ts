import { randomUUID } from 'node:crypto';
import { eventually, testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd } from './support/sync-helpers';

/** A drawing set of about 1,700 pages of text (5 MB): about 5 s of pdf.js alone (about 2 ms a page), far more under load. */
const slowPdf = (seed: number) => ({ generate: { format: 'pdf', size: 5_000_000, seed } });

/**
 * Tenant A's data source of large PDFs keeps the worker's one extraction process busy, several seconds a file.
 * Tenant B's one small text file, synced meanwhile, takes the extraction slot kept for a tenant holding none
 * and the extraction process kept for one with none in the processes, so it does not wait for A's PDFs.
 */
describe("A newcomer's text extraction while another tenant's slow PDFs hold the extraction process", () => {
  const stack = connectorOnSimulator({ env: { EXTRACTION_WORKERS: 1 } });
  const { http } = stack;

  const dataSourceOf = async (caller: TestCaller, files: Array<Record<string, unknown>>) => {
    const folderId = (
      await stack.sim.admin.post('/folders', {
        parentId: await stack.sim.folderId('/Structural'),
        name: `newcomer-${randomUUID()}`,
      })
    ).data.id;
    for (const file of files) await stack.sim.admin.post('/files', { parentId: folderId, ...file });
    return dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folderId],
    });
  };
  const statuses = async (dataSourceId: string): Promise<string[]> =>
    (
      await stack.sut.db.query(`SELECT "extractionStatus" AS s FROM connector.documents WHERE "dataSourceId" = $1`, [
        dataSourceId,
      ])
    ).map((r: { s: string }) => r.s);

  /** When each document's text was stored (the store's transaction start: just after its extraction ended), done ones first. */
  const storedAt = async (dataSourceId: string): Promise<number[]> =>
    (
      await stack.sut.db.query(
        `SELECT "updatedAt" AS at FROM connector.documents WHERE "dataSourceId" = $1 AND "extractionStatus" <> 'Pending' ORDER BY "updatedAt"`,
        [dataSourceId],
      )
    ).map((r: { at: Date }) => r.at.getTime());

  it("makes tenant B's new text file searchable before the PDF of tenant A's being read is done", async () => {
    const tenantA = await testCaller({ roles: ['admin'] });
    const tenantB = await testCaller({ roles: ['admin'] });
    const aSource = await dataSourceOf(
      tenantA,
      Array.from({ length: 3 }, (_, n) => ({
        name: `drawings-${n}.pdf`,
        ...slowPdf(n + 1),
      })),
    );
    const bSource = await dataSourceOf(tenantB, [{ name: 'crane.txt', text: 'Site notes on the crane' }]);

    await syncToEnd(stack.sut.app, tenantA, aSource);
    // A's first PDF is extracted: its second has just taken the extraction process.
    await eventually(async () => (await statuses(aSource)).some((s) => s !== 'Pending'), 120_000, 50);

    const [{ now: requested }] = await stack.sut.db.query(`SELECT now()`);
    await http().post(`/v1/data-sources/${bSource}/sync`).set(tenantB.auth).expect(202);
    await eventually(async () => (await statuses(bSource)).join() === 'Succeeded', 120_000, 50);
    const aStoredSince = async () => (await storedAt(aSource)).filter((at) => at > requested.getTime());
    await eventually(async () => (await aStoredSince()).length > 0, 120_000, 50);

    // B's text was read while the PDF of A's in the process when B asked (seconds of pdf.js) was still being read,
    // not after it. Ordered by the database's clock, not timed: a loaded machine slows both sides alike.
    const [bStored] = await storedAt(bSource);
    const [aNextStored] = await aStoredSince();
    expect(bStored).toBeLessThan(aNextStored);
  }, 400_000);
});
