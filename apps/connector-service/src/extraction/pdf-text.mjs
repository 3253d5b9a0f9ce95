// pdf.js is ESM-only: the extraction worker (CommonJS) imports this module with a real dynamic import.
import { getDocumentProxy } from 'unpdf';

// pdf.js keeps every page it has read until cleanup(): a long PDF would outgrow the thread's heap bound.
const CLEANUP_EVERY_PAGES = 100;

/**
 * The text of each page, as unpdf's extractText(pdf) gives it, read one page at a time: extractText
 * reads every page at once, so its memory grows with the whole document (docs/ingestion.md).
 * The caller joins the pages and keeps where each lies in the text.
 */
export async function pdfPages(data) {
  // Errors only: pdf.js warns about malformed PDFs on stdout, between the service's JSON log lines.
  const pdf = await getDocumentProxy(data, { verbosity: 0 });
  try {
    const pages = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      pages.push((await pageText(await pdf.getPage(n))).replace(/[^\S\n]+/g, ' ').replace(/ ?\n ?/g, '\n'));
      if (n % CLEANUP_EVERY_PAGES === 0) await pdf.cleanup();
    }
    return pages;
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
