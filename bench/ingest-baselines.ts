/**
 * The bare loops `bench:ingest` measures the product against, both over the simulator's document API:
 * list every folder page, then download every file CONCURRENCY at a time. The second also extracts each
 * file's text with the product's own extractor (the built one, as the worker runs it) in a pool of one
 * worker thread per core, and keeps nothing: the least time in which the corpus could be searchable here.
 */
import axios, { AxiosInstance } from 'axios';
import { existsSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type * as Extraction from '../apps/connector-service/src/extraction/text-extractor';
import { reapedChildrenCpuMs } from './thread-cpu';

export const CONCURRENCY = 8;

interface ListedFile {
  id: string;
  name: string;
  mimeType: string;
}

/** List every folder page and download every file, CONCURRENCY at a time, keeping nothing. */
export async function listAndDownload(simUrl: string, folder: string): Promise<number> {
  return timed(simUrl, folder);
}

/**
 * As listAndDownload, and each file's text extracted in a pool of one process per core; returns the time, the
 * CPU of this process and of the extraction processes, and the files' outcomes.
 */
export async function listDownloadAndExtract(
  simUrl: string,
  folder: string,
): Promise<{ ms: number; cpuMs: number; processes: number; outcomes: Record<string, number> }> {
  const processes = availableParallelism();
  // Nice 0: nothing else runs beside the bare loop, so there is nothing to yield to.
  const extractor = new (builtExtractor().TextExtractor)({ processes, nice: 0 });
  const outcomes: Record<string, number> = {};
  const cpu = process.cpuUsage();
  const reapedBefore = reapedChildrenCpuMs(process.pid);
  const ms = await timed(simUrl, folder, async (file, content) => {
    const { status } = await extractor.extract(content, file.mimeType, file.name);
    outcomes[status] = (outcomes[status] ?? 0) + 1;
  });
  // Closing the pool ends its processes: once reaped, their CPU is in this process's children's time.
  await extractor.onModuleDestroy();
  const { user, system } = process.cpuUsage(cpu);
  const extractionMs = reapedChildrenCpuMs(process.pid) - reapedBefore;
  return { ms, cpuMs: (user + system) / 1000 + extractionMs, processes, outcomes };
}

async function timed(
  simUrl: string,
  folder: string,
  use?: (file: ListedFile, content: Buffer) => Promise<void>,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const api = axios.create({ baseURL: `${simUrl}/api/v1`, httpAgent: agent });
  const started = Date.now();
  const headers = await signIn(simUrl, api);
  const queue = await listFiles(api, headers, folder);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const res = await download(api, headers, file.id);
        const chunks: Buffer[] = [];
        for await (const chunk of res.data) if (use) chunks.push(chunk);
        await use?.(file, Buffer.concat(chunks));
      }
    }),
  );
  agent.destroy();
  return Date.now() - started;
}

/** Once more when the connection was reset: the server may close a kept-alive socket just as it is reused. */
async function download(api: AxiosInstance, headers: Record<string, string>, id: string) {
  const get = () => api.get(`/files/${id}/content`, { headers, responseType: 'stream' });
  return get().catch((error) => (error?.code === 'ECONNRESET' ? get() : Promise.reject(error)));
}

async function signIn(simUrl: string, api: AxiosInstance): Promise<Record<string, string>> {
  const token = (await axios.post(`${simUrl}/admin/tokens`, { subject: 'bench' })).data.accessToken;
  const session = (
    await api.post(
      '/session',
      { username: 'alice', password: 'alice-password' },
      { headers: { Authorization: `Bearer ${token}` } },
    )
  ).data.sessionToken;
  return { Authorization: `Bearer ${token}`, 'X-Session-Token': session };
}

async function listFiles(api: AxiosInstance, headers: Record<string, string>, folder: string): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  const folders = [folder];
  while (folders.length) {
    const id = folders.shift()!;
    let cursor: string | undefined;
    do {
      const page = (await api.get(`/folders/${id}/children`, { headers, params: { cursor } })).data;
      for (const item of page.items)
        if (item.kind === 'folder') folders.push(item.id);
        else files.push(item);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return files;
}

/** The compiled extractor (`npm run build`): its threads run the compiled worker, as in the product's worker process. */
function builtExtractor(): typeof Extraction {
  const path = join(
    __dirname,
    '../dist/apps/connector-service/apps/connector-service/src/extraction/text-extractor.js',
  );
  if (!existsSync(path)) throw new Error('Run `npm run build` first: the extract baseline uses the built extractor');
  return require(path);
}
