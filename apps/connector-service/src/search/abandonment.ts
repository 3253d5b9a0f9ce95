import type { Response } from 'express';

/** Aborts when the caller leaves before the answer is sent, so a search still waiting for its turn is dropped. */
export function abandonment(res: Response): AbortSignal {
  const caller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) caller.abort();
  });
  return caller.signal;
}
