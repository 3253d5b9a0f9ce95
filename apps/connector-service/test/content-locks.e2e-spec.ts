import { createHash } from 'node:crypto';
import { Transactions } from '@app/database';
import { DocumentContentsRepository } from '../src/documents/document-contents.repository';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';

/**
 * The content locks keep the blob collector's "no document refers to these bytes, so delete them" apart
 * from an ingest's "these bytes are stored, so refer to them".
 */
describe('Content locks (ingest against the blob collector)', () => {
  let sut: ConnectorTestApp;
  const contents = () => sut.app.get(DocumentContentsRepository);
  const transactions = () => sut.app.get(Transactions);
  const sha = (text: string) => createHash('sha256').update(`${text}:${Math.random()}`).digest('hex');

  beforeAll(async () => {
    sut = await startConnectorApp();
  });

  afterAll(() => sut?.close());

  it("keeps the collector off a batch's content until the batch's transaction ends", async () => {
    const [first, second] = [sha('a'), sha('b')];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    let locked!: () => void;
    const batchLocked = new Promise<void>((resolve) => (locked = resolve));

    const batch = transactions().run(async (transaction) => {
      await contents().lockContents(transaction, [second, first, second]);
      locked();
      await held;
      events.push('batch committed');
    });
    await batchLocked;
    const collector = transactions().run(async (transaction) => {
      await contents().lockContent(transaction, second);
      events.push('collector locked');
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    events.push('batch ends');
    release();
    await Promise.all([batch, collector]);

    expect(events).toEqual(['batch ends', 'batch committed', 'collector locked']);
  });

  it('never deadlocks two batches that hold the same contents in other orders', async () => {
    const hashes = Array.from({ length: 20 }, (_, i) => sha(String(i)));
    const batches = Array.from({ length: 8 }, (_, i) =>
      transactions().run(async (transaction) => {
        const order = i % 2 ? [...hashes].reverse() : hashes;
        await contents().lockContents(transaction, order);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }),
    );
    await expect(Promise.all(batches)).resolves.toHaveLength(8);
  });
});
