import type { Readable } from 'node:stream';
import { DocumentSystemException } from './document-system.exception';

/**
 * The chunks of an answer as they came off the socket, each in an ArrayBuffer of its own. A large answer is sent
 * to a parser process, whose pipe takes a copy (V8's serializer writes the chunks into one buffer: about 10 ms
 * of the event loop for 16 MiB). Past `maxBytes` the
 * answer fails as too large; when `signal` aborts, the read ends as axios's cancel would (ERR_CANCELED).
 */
export function collectAnswer(stream: Readable, maxBytes: number, signal: AbortSignal): Promise<Uint8Array[]> {
  return new Promise<Uint8Array[]>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const fail = (error: Error) => {
      signal.removeEventListener('abort', cancel);
      stream.destroy();
      reject(error);
    };
    const cancel = () => fail(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' }));
    if (signal.aborted) return cancel();
    signal.addEventListener('abort', cancel, { once: true });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(DocumentSystemException.answerTooLarge(maxBytes));
      chunks.push(owned(chunk));
      // One chunk per turn of the event loop: a 16 MiB answer over a fast link would otherwise arrive in
      // bursts of megabytes (libuv reads up to 32 chunks at a time) and hold timers and other requests up.
      stream.pause();
      setImmediate(() => stream.resume());
    });
    stream.on('error', fail);
    stream.on('end', () => {
      signal.removeEventListener('abort', cancel);
      resolve(chunks);
    });
  });
}

/** The bytes in an ArrayBuffer of their own (a socket's chunks already are; a slice is copied). */
export function owned(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
}

export function byteLength(chunks: Uint8Array[]): number {
  return chunks.reduce((n, c) => n + c.byteLength, 0);
}
