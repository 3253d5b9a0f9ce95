import type { Readable } from 'node:stream';

export interface StoredBlob {
  sha256: string;
  size: number;
}

/**
 * Content-addressed storage of original file bytes: the key is the SHA-256 of the content, so the
 * same bytes are stored once and a retried write is harmless.
 */
export abstract class BlobStore {
  /** Streams `content` in (memory does not grow with its size) and returns its hash and size. */
  abstract put(content: Readable): Promise<StoredBlob>;
  /** Null when no blob has this hash (collected since its document was read, say). */
  abstract open(sha256: string): Promise<Readable | null>;
  abstract read(sha256: string): Promise<Buffer>;
  abstract exists(sha256: string): Promise<boolean>;
  abstract delete(sha256: string): Promise<void>;
}
