import { generatedPdf } from '../../../document-system-simulator/src/store/generated-content';
import { pdfDocument } from '../../../document-system-simulator/src/store/file-formats';
import { PdfTextPool } from './pdf-text-worker';

const quickPdf = (line: string) => pdfDocument([[line]]);
/** One page of 200,000 lines: pdf.js needs far more than 48 MB of heap for it. */
const hugePage = () => pdfDocument([Array.from({ length: 200_000 }, (_, i) => `line ${i}`)]);

describe(PdfTextPool.name, () => {
  let pool: PdfTextPool | undefined;
  afterEach(() => pool?.close());

  it('gives the text of every page in order, as unpdf extractText with merged pages did', async () => {
    pool = new PdfTextPool({ threads: 1 });
    const pages = Array.from({ length: 120 }, (_, i) => [`Sheet A-${i + 1}`, 'fire  rated (wall) \\ UL U419', 'door D-12']);
    const text = await pool.extract(pdfDocument(pages));
    expect(text).toBe(pages.map((lines) => lines.join('\n').replace('  ', ' ')).join('\n'));
  });

  it('reads two PDFs at once, one on each thread', async () => {
    pool = new PdfTextPool({ threads: 2 });
    await Promise.all([pool.extract(quickPdf('warm')), pool.extract(quickPdf('warm'))]);
    const done: string[] = [];
    await Promise.all([
      pool.extract(generatedPdf(2 * 1024 * 1024, 1)).then(() => done.push('big')),
      pool.extract(quickPdf('door D-12')).then(() => done.push('small')),
    ]);
    expect(done).toEqual(['small', 'big']);
  });

  it('ends only the thread of a PDF that takes too long, and starts it again for the next file', async () => {
    pool = new PdfTextPool({ threads: 2, timeoutMs: 2_000 });
    const slow = pool.extract(generatedPdf(10 * 1024 * 1024, 2));
    await expect(pool.extract(quickPdf('door D-12'))).resolves.toBe('door D-12');
    await expect(slow).rejects.toThrow('timed out reading the PDF');
    await expect(Promise.all([pool.extract(quickPdf('after')), pool.extract(quickPdf('after'))])).resolves.toEqual(['after', 'after']);
  });

  it('fails only the PDF that needs more memory than allowed', async () => {
    pool = new PdfTextPool({ threads: 2, maxHeapMb: 48 });
    const huge = pool.extract(hugePage());
    await expect(pool.extract(quickPdf('door D-12'))).resolves.toBe('door D-12');
    await expect(huge).rejects.toThrow('the PDF needs more memory than allowed (48 MB)');
    await expect(pool.extract(quickPdf('after'))).resolves.toBe('after');
  });
});
