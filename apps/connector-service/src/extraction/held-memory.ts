import { ReadTextRequest } from './read-text';

/** Asked of an extraction process between files: how much memory it holds. */
export const MEMORY_QUESTION = { memory: true } as const;

/** What an extraction process is asked: a file's text, or how much memory it holds. */
export type ExtractionRequest = ReadTextRequest | typeof MEMORY_QUESTION;

const MB = 1024 * 1024;

/** In the process: its answer to MEMORY_QUESTION. */
export function heldMemory(): { residentMb: number } {
  return { residentMb: process.memoryUsage.rss() / MB };
}

/** The memory a process said it holds, if what it said is one (a file that took over its reader may say anything). */
export function residentMbOf(answer: unknown): number | undefined {
  const residentMb = (answer as { residentMb?: unknown } | undefined)?.residentMb;
  return typeof residentMb === 'number' && Number.isFinite(residentMb) ? residentMb : undefined;
}
