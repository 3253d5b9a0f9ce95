// Runs in a worker thread: pdf.js is ESM-only and CPU-heavy, so it stays off the main event loop
// and outside any CommonJS loader. One message in (the PDF's bytes), one out ({text} or {error}).
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { getDocumentProxy } from 'unpdf';

const PDF_THREAD_NICE = 19;

// Background work: on Linux a thread has its own nice value, so this thread yields the CPU to the event
// loop (sync runs, API requests, search) and to the database, and takes what they leave.
try {
  setPriority(PDF_THREAD_NICE);
} catch {
  // Not permitted here: extraction simply runs at normal priority.
}

// pdf.js keeps every page it has read until cleanup(): a 6,000-page PDF then needs more than 256 MB of heap.
const CLEANUP_EVERY_PAGES = 100;

parentPort.on('message', async (data) => {
  try {
    parentPort.postMessage({ text: await pdfText(new Uint8Array(data)) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});

/**
 * The text of unpdf's extractText(pdf, { mergePages: true }), read one page at a time: extractText
 * reads every page at once, which took 1.3 GB for a 20 MB PDF.
 */
async function pdfText(data) {
  // Errors only: pdf.js warns about malformed PDFs on stdout, between the service's JSON log lines.
  const pdf = await getDocumentProxy(data, { verbosity: 0 });
  try {
    const pages = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      pages.push(await pageText(await pdf.getPage(n)));
      if (n % CLEANUP_EVERY_PAGES === 0) await pdf.cleanup();
    }
    return pages.join('\n').replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n').replace(/\n{3,}/g, '\n\n');
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

async function pageText(page) {
  const { items } = await page.getTextContent();
  return items
    .filter((item) => item.str != null)
    .map((item) => item.str + (item.hasEOL ? '\n' : ''))
    .join('');
}
