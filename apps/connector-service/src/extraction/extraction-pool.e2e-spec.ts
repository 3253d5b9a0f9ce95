import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { generatedPdf } from '../../../document-system-simulator/src/store/generated-content';
import { pdfDocument } from '../../../document-system-simulator/src/store/file-formats';
import { hostileHtml, hostileJson, hostileText } from '../../test/factories/hostile-files';
import { inflatingPdf } from '../../test/factories/inflating-pdf';
import { after } from '@app/testing';
import { childrenOf } from '../../test/support/processes';
import { residentMb } from '../common/process-memory';
import { ExtractionLimitExceeded, ExtractionPool, ExtractionUnavailable } from './extraction-pool';

const ROOT = resolve(__dirname, '../../../..');
const quickPdf = (line: string) => pdfDocument([[line]]);
const textOf = (extraction: Promise<{ text: string }>) => extraction.then(({ text }) => text);
/** One page of 200,000 lines: pdf.js needs far more than 64 MB of heap for it. */
const hugePage = () => pdfDocument([Array.from({ length: 200_000 }, (_, i) => `line ${i}`)]);

describe(ExtractionPool.name, () => {
  let sut: ExtractionPool | undefined;
  afterEach(() => sut?.close());

  it('gives the text of every page in order, as unpdf extractText with merged pages did, and where each page lies', async () => {
    sut = new ExtractionPool({ processes: 1 });
    const pages = Array.from({ length: 120 }, (_, i) => [
      `Sheet A-${i + 1}`,
      'fire  rated (wall) \\ UL U419',
      'door D-12',
    ]);
    const extracted = await sut.extract('pdf', pdfDocument(pages));
    const pageTexts = pages.map((lines) => lines.join('\n').replace('  ', ' '));
    expect(extracted.text).toBe(pageTexts.join('\n'));
    expect(extracted.pages).toHaveLength(120);
    extracted.pages.forEach(({ page, start, end }) =>
      expect(extracted.text.slice(start, end)).toBe(pageTexts[page - 1]),
    );
  });

  it('keeps an empty page as an empty range between its neighbours; other formats have no pages', async () => {
    sut = new ExtractionPool({ processes: 1 });
    const extracted = await sut.extract('pdf', pdfDocument([['first page'], [], ['third page']]));
    expect(extracted).toEqual({
      text: 'first page\nthird page',
      pages: [
        { page: 1, start: 0, end: 10 },
        { page: 2, start: 10, end: 10 },
        { page: 3, start: 11, end: 21 },
      ],
    });
    expect(await sut.extract('text', Buffer.from('notes'))).toEqual({ text: 'notes', pages: [] });
  });

  // The timing cases run their threads at normal priority: the other test files keep the machine busy.
  it('reads two files at once, one in each process', async () => {
    sut = new ExtractionPool({ processes: 2, nice: 0 });
    await Promise.all([sut.extract('pdf', quickPdf('warm')), sut.extract('pdf', quickPdf('warm'))]);
    const done: string[] = [];
    await Promise.all([
      sut.extract('pdf', generatedPdf(2 * 1024 * 1024, 1)).then(() => done.push('big')),
      sut.extract('text', Buffer.from('door  D-12\r\n')).then(() => done.push('small')),
    ]);
    expect(done).toEqual(['small', 'big']);
  }, 180_000);

  it("reads a tenant's file at once in the process kept for a newcomer while another tenant's big file holds every other, tenants taking turns for it", async () => {
    sut = new ExtractionPool({ processes: 1, nice: 0 });
    const done: string[] = [];
    const read = (owner: string, name: string) =>
      sut!.extract('text', Buffer.from(name), owner).then(({ text }) => done.push(text));
    const big = sut.extract('pdf', generatedPdf(4 * 1024 * 1024, 3), 'a').then(() => done.push('a1'));
    await Promise.all([big, read('a', 'a2'), read('a', 'a3'), read('b', 'b1'), read('b', 'b2'), read('c', 'c1')]);
    // c1 before b2: c's last file started longest ago. a's next files wait for the process its first holds.
    expect(done).toEqual(['b1', 'c1', 'b2', 'a1', 'a2', 'a3']);
    await sut.close();
    expect(childrenOf(process.pid, 'extraction.worker')).toEqual([]);
  }, 180_000);

  it("keeps the process for a newcomer started while every other is busy, so a newcomer's file does not wait for one to start", async () => {
    sut = new ExtractionPool({ processes: 1, nice: 0 });
    let bigRead = false;
    const big = sut.extract('pdf', generatedPdf(4 * 1024 * 1024, 3), 'a').then(() => (bigRead = true));
    let started: number[] = [];
    while (!bigRead && started.length < 2) {
      started = childrenOf(process.pid, 'extraction.worker');
      await after(50);
    }
    expect({ started: started.length, bigRead }).toEqual({ started: 2, bigRead: false });
    expect(await textOf(sut.extract('text', Buffer.from('door D-12'), 'b'))).toBe('door D-12');
    // Read by a process started before it came: none was started for it.
    expect(childrenOf(process.pid, 'extraction.worker').sort()).toEqual(started.sort());
    await big;
  }, 180_000);

  it('reads hostile text and HTML as fast as any', async () => {
    sut = new ExtractionPool({ processes: 1 });
    await expect(textOf(sut.extract('text', hostileText(2_000_000)))).resolves.toBe(
      `start${'\r'.repeat(2_000_000)}end`,
    );
    await expect(textOf(sut.extract('html', hostileHtml(200_000)))).resolves.toBe('<'.repeat(200_000));
  });

  it('ends only the process of a file that takes too long, and starts it again for the next file', async () => {
    sut = new ExtractionPool({ processes: 2, timeoutMs: 15_000, nice: 0 });
    await Promise.all([sut.extract('pdf', quickPdf('warm')), sut.extract('pdf', quickPdf('warm'))]);
    const slow = sut.extract('pdf', generatedPdf(20 * 1024 * 1024, 2));
    await expect(textOf(sut.extract('pdf', quickPdf('door D-12')))).resolves.toBe('door D-12');
    await expect(slow).rejects.toThrow(new ExtractionLimitExceeded('Extraction took longer than 15 s'));
    await expect(
      Promise.all([textOf(sut.extract('pdf', quickPdf('after'))), textOf(sut.extract('text', Buffer.from('after')))]),
    ).resolves.toEqual(['after', 'after']);
  }, 180_000);

  it('fails only the file that needs more memory than allowed', async () => {
    sut = new ExtractionPool({ processes: 2, maxHeapMb: 64 });
    const huge = sut.extract('pdf', hugePage());
    await expect(textOf(sut.extract('pdf', quickPdf('door D-12')))).resolves.toBe('door D-12');
    await expect(huge).rejects.toThrow(new ExtractionLimitExceeded('Extraction ran out of memory (64 MB)'));
    await expect(textOf(sut.extract('pdf', quickPdf('after')))).resolves.toBe('after');
  });

  it('fails only the file whose parsing outgrows the heap inside native code, and reads the next', async () => {
    sut = new ExtractionPool({ processes: 1, maxHeapMb: 64 });
    await expect(sut.extract('json', hostileJson())).rejects.toThrow(
      new ExtractionLimitExceeded('Extraction ran out of memory (64 MB)'),
    );
    await expect(textOf(sut.extract('json', Buffer.from('{"door":"D-12"}')))).resolves.toBe('D-12');
  });

  it('fails a file whose streams inflate past its memory limit outside the heap, in one attempt, its process held near the limit', async () => {
    // A heap of 64 MB: the whole process may hold 64 + 192 MB.
    sut = new ExtractionPool({ processes: 1, maxHeapMb: 64 });
    await sut.extract('pdf', quickPdf('warm'));
    // Its own and the newcomer's (started while it was busy): a file sent again would go to a third.
    const started = new Set(childrenOf(process.pid, 'extraction.worker'));
    const processes = new Set<number>();
    let peakMb = 0;
    const sampler = setInterval(() => {
      for (const pid of childrenOf(process.pid, 'extraction.worker')) {
        processes.add(pid);
        peakMb = Math.max(peakMb, residentMb(pid) ?? 0);
      }
    }, 20);
    try {
      await expect(sut.extract('pdf', inflatingPdf(256))).rejects.toThrow(
        new ExtractionLimitExceeded('Extraction ran out of memory (64 MB)'),
      );
    } finally {
      clearInterval(sampler);
    }
    expect([...processes].filter((pid) => !started.has(pid))).toEqual([]); // not sent again to a new process, as a process killed from outside is
    expect(peakMb).toBeLessThan(64 + 192 + 128); // near its limit, not the 1 GB the page inflates to
    await expect(textOf(sut.extract('pdf', quickPdf('after')))).resolves.toBe('after');
  });

  it("does not hand a file's process the connector's environment (its database URL, its keys)", async () => {
    process.env.EXTRACTION_TEST_SECRET = 'not-for-files';
    try {
      sut = new ExtractionPool({ processes: 1 });
      await sut.extract('text', Buffer.from('door D-12'));
      const environments = childrenOf(process.pid, 'extraction.worker').map((pid) =>
        readFileSync(`/proc/${pid}/environ`, 'utf8'),
      );
      expect(environments).not.toHaveLength(0);
      expect(environments.filter((environment) => environment.includes('not-for-files'))).toEqual([]);
    } finally {
      delete process.env.EXTRACTION_TEST_SECRET;
    }
  });

  it('fails a file whose text is larger than allowed', async () => {
    sut = new ExtractionPool({ processes: 1, maxTextBytes: 1024 * 1024 });
    await expect(textOf(sut.extract('text', Buffer.from('é'.repeat(512 * 1024))))).resolves.toHaveLength(512 * 1024);
    await expect(sut.extract('text', Buffer.from(`${'é'.repeat(512 * 1024)}!`))).rejects.toThrow(
      new ExtractionLimitExceeded('Extracted text is larger than 1 MiB'),
    );
  });

  it('leaves a file to be tried again, not failed, when its process cannot even start', async () => {
    sut = new ExtractionPool({ processes: 1, maxHeapMb: 4 });
    const error = await sut.extract('text', Buffer.from('door D-12')).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ExtractionUnavailable);
    expect(error).toHaveProperty('message', expect.stringMatching(/^the extraction process did not start: /));
  });

  it('refuses a file once it is closed (shutting down), so the file is tried again later', async () => {
    sut = new ExtractionPool({ processes: 1 });
    await sut.extract('text', Buffer.from('warm'));
    await sut.close();
    await expect(sut.extract('text', Buffer.from('door D-12'))).rejects.toThrow(
      new ExtractionUnavailable('extractor closed'),
    );
  });

  // An idle extraction process must not hold the connector's up: a worker that is shutting down, or a test run, ends by itself.
  it("lets the connector's process end by itself with its extraction processes idle, even when the pool was never closed", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        './scripts/register-paths.js',
        'apps/connector-service/test/support/extract-and-leave-open.ts',
      ],
      { cwd: ROOT, timeout: 30_000, env: { ...process.env, TS_NODE_PROJECT: resolve(ROOT, 'tsconfig.json') } },
    );
    expect(stdout).toBe('door D-12');
  }, 60_000);
});
