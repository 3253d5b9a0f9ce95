import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const TIMEOUT_MS = 60_000;

interface Pending {
  resolve: (text: string) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * PDF text through one worker thread. A PDF that takes longer than a minute ends the worker (it is
 * restarted on the next request), so one bad file cannot stall ingestion.
 */
export class PdfTextWorker {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  extract(content: Buffer): Promise<string> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.failAll(new Error('timed out reading the PDF'));
        void worker.terminate();
      }, TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, data: content });
    });
  }

  async close(): Promise<void> {
    this.failAll(new Error('extractor closed'));
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'pdf-text.worker.mjs'));
    worker.unref();
    worker.on('message', ({ id, text, error }: { id: number; text?: string; error?: string }) => {
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      clearTimeout(pending.timer);
      if (error !== undefined) pending.reject(new Error(error));
      else pending.resolve(text ?? '');
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(new Error('PDF worker stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
