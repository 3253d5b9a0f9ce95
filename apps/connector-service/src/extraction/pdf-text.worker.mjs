// Runs in a worker thread: pdf.js is ESM-only and CPU-heavy, so it stays off the main event loop
// and outside any CommonJS loader. One message in ({id, data}), one out ({id, text} or {id, error}).
import { parentPort } from 'node:worker_threads';
import { extractText, getDocumentProxy } from 'unpdf';

parentPort.on('message', async ({ id, data }) => {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(data));
    const { text } = await extractText(pdf, { mergePages: true });
    parentPort.postMessage({ id, text });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) });
  } finally {
    if (pdf) await pdf.destroy().catch(() => undefined);
  }
});
