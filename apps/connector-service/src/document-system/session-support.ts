import { Logger } from '@nestjs/common';
import { AxiosResponse } from 'axios';
import type { Readable } from 'node:stream';
import { AnswerParser } from './answer-parser';
import { CallLimits } from './call-limits';
import { CallShares } from './call-shares';
import { RetryPolicy } from './retry-policy';
import { SessionTokenCache } from './session-token-cache';

/** What every session of an adapter shares: the session cache, the calls' shares, the retry policy, the limits, the answer parser. */
export interface SessionKit {
  sessions: SessionTokenCache;
  shares: CallShares;
  policy: RetryPolicy;
  limits: CallLimits;
  parser: AnswerParser;
  logger: Logger;
}

/** Of an error answer, we read this much to learn its OAuth-style `error`. */
export const ERROR_BODY_BYTES = 64 * 1024;

export function errorOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'error' in body
    ? String((body as { error: unknown }).error)
    : undefined;
}

export function header(res: AxiosResponse, name: string): string | undefined {
  const value = res.headers[name];
  return value === undefined ? undefined : String(value);
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The `error` of an error answer; a body that is large, slow (past `signal`), broken or not JSON tells nothing. */
export async function drainJson(stream: Readable, signal: AbortSignal): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => stream.destroy();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > ERROR_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  } finally {
    signal.removeEventListener('abort', stop);
    stream.destroy();
  }
}
