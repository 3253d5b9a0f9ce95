import { inflatingPdf } from '../../test/factories/inflating-pdf';
import { childrenOf } from '../../test/support/processes';
import { hideExitOf } from '../../test/support/unseen-exit';
import { residentMb } from '../common/process-memory';
import { ExtractionPool } from './extraction-pool';

const textOf = (extraction: Promise<{ text: string }>) => extraction.then(({ text }) => text);
const extractionProcesses = () => childrenOf(process.pid, 'extraction.worker');

/** Whether `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
};

describe(`${ExtractionPool.name}'s processes`, () => {
  let sut: ExtractionPool | undefined;
  afterEach(() => sut?.close());

  it('replaces a process that holds hundreds of MB after a big file, reading the files that waited meanwhile in a fresh one', async () => {
    sut = new ExtractionPool({ processes: 1 });
    await sut.extract('text', Buffer.from('warm'));
    const [fresh] = extractionProcesses();
    const freshMb = residentMb(fresh)!;
    // The page inflates to 100 MiB in pdf.js, outside the heap: the process's memory climbs to about 3x its fresh size.
    const big = textOf(sut.extract('pdf', inflatingPdf(100)));
    const waiting = ['door D-13', 'door D-14'].map((text) => textOf(sut!.extract('text', Buffer.from(text))));

    await expect(big).resolves.toBe('door D-12');
    await expect(Promise.all(waiting)).resolves.toEqual(['door D-13', 'door D-14']);
    await expect(textOf(sut.extract('text', Buffer.from('door D-15')))).resolves.toBe('door D-15');
    // The swollen process is gone; what is left (the fresh one, and the newcomer's, started while it was busy) is small.
    const left = extractionProcesses();
    expect(left).not.toContain(fresh);
    expect(left.filter((pid) => !(residentMb(pid)! < 2 * freshMb))).toEqual([]);
  }, 60_000);

  it('closes within seconds though a process it ended is never seen to go (stuck in the kernel)', async () => {
    sut = new ExtractionPool({ processes: 1 });
    await sut.extract('text', Buffer.from('warm'));
    const [stuck] = extractionProcesses();
    const release = await hideExitOf(stuck);
    try {
      await expect(settlesWithin(sut.close(), 5_000)).resolves.toBe(true);
    } finally {
      release();
    }
  }, 30_000);
});
