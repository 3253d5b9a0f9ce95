import { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A reader of a paced answer that takes no bytes for this long is let go: its connection is closed. */
const READER_STALL_MS = 60_000;
/** Bytes handed to the socket at a time; the next piece waits until the client has taken these. */
const PIECE_BYTES = 64 * 1024;

const logger = new Logger('Documents');

/**
 * Sends `body` as fast as the client takes it. A client that hangs up first (a cancelled download, a closed
 * tab) ends it quietly: nothing went wrong here. A failure of the body still throws.
 */
export async function answerToClient(body: Readable, res: Response): Promise<void> {
  // Registered before pipeline's own listener, so it sees whether the body had failed when the response closed.
  let clientLeft = res.destroyed;
  res.once('close', () => (clientLeft ||= !res.writableFinished && !body.errored));
  try {
    await pipeline(body, res);
  } catch (error) {
    if (!clientLeft) throw error;
    logger.debug('The client left before the answer was sent');
  }
}

/**
 * Sends the pieces PIECE_BYTES at a time, each once the client has taken the one before, so that a slow
 * reader holds one piece; a reader that takes none for READER_STALL_MS is let go.
 */
export async function answerPaced(pieces: AsyncIterable<Buffer>, res: Response): Promise<void> {
  const stall = setTimeout(() => res.destroy(), READER_STALL_MS);
  async function* paced(): AsyncGenerator<Buffer> {
    for await (const piece of pieces)
      for (let at = 0; at < piece.length; at += PIECE_BYTES) {
        stall.refresh();
        yield piece.subarray(at, at + PIECE_BYTES);
      }
  }
  try {
    await answerToClient(Readable.from(paced(), { objectMode: false }), res);
  } finally {
    clearTimeout(stall);
  }
}
