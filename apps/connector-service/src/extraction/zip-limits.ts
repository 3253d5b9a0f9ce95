import { inflateRawSync } from 'node:zlib';

export interface ZipLimits {
  /** Sum of the unzipped sizes of all entries. */
  maxUnzippedBytes: number;
  maxEntries: number;
}

/** A DOCX is a ZIP: what mammoth may unzip of it. */
export const DOCX_LIMITS: ZipLimits = { maxUnzippedBytes: 64 * 1024 * 1024, maxEntries: 10_000 };

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const END_OF_DIRECTORY_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const STORED = 0;
const DEFLATED = 8;

interface Entry {
  method: number;
  compressedSize: number;
  declaredSize: number;
  localHeaderOffset: number;
}

/**
 * Throws unless the ZIP unzips within the limits. The sizes its central directory declares are checked
 * first; then every entry is really inflated, with the output cut at what is left of the budget, so a
 * directory that lies about its sizes is refused too. The same directory jszip (mammoth's unzipper) reads.
 */
export function checkZipLimits(zip: Buffer, limits: ZipLimits): void {
  const entries = directoryEntries(zip, limits);
  const declared = entries.reduce((sum, entry) => sum + entry.declaredSize, 0);
  if (declared > limits.maxUnzippedBytes) throw tooLarge(limits);
  let budget = limits.maxUnzippedBytes;
  for (const entry of entries) budget -= unzippedSize(zip, entry, budget, limits);
}

function directoryEntries(zip: Buffer, limits: ZipLimits): Entry[] {
  const end = endOfDirectory(zip);
  if (isZip64(zip, end)) throw new Error('ZIP64 archives are not read');
  const shift = prependedBytes(zip, end);
  const entries: Entry[] = [];
  let at = zip.readUInt32LE(end + 16) + shift;
  while (at + 46 <= zip.length && zip.readUInt32LE(at) === DIRECTORY_ENTRY) {
    if (entries.length === limits.maxEntries)
      throw new Error(`the archive has more than ${limits.maxEntries.toLocaleString('en')} entries`);
    const entry = {
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      declaredSize: zip.readUInt32LE(at + 24),
      localHeaderOffset: zip.readUInt32LE(at + 42) + shift,
    };
    if (entry.declaredSize === 0xffffffff || entry.compressedSize === 0xffffffff)
      throw new Error('ZIP64 archives are not read');
    entries.push(entry);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** Any of the end record's counts, size or offset at its largest sends jszip to a ZIP64 record for the real value. */
function isZip64(zip: Buffer, end: number): boolean {
  const counts = [4, 6, 8, 10].map((field) => zip.readUInt16LE(end + field));
  const sizeAndOffset = [12, 16].map((field) => zip.readUInt32LE(end + field));
  return counts.includes(0xffff) || sizeAndOffset.includes(0xffffffff);
}

/**
 * How far the end record lies past where the directory it states ends: bytes put in front of the archive (a
 * self-extractor's stub, junk). jszip moves every offset by that much (its reader's `zero`), and refuses an
 * archive shorter than stated.
 */
function prependedBytes(zip: Buffer, end: number): number {
  const shift = end - (zip.readUInt32LE(end + 16) + zip.readUInt32LE(end + 12));
  if (shift < 0) throw new Error('the ZIP directory runs past its end record');
  return shift;
}

/** The last end-of-central-directory record, as jszip finds it: within the last 64 KiB (its comment) of the file. */
function endOfDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - END_OF_DIRECTORY_BYTES - MAX_COMMENT_BYTES);
  for (let at = zip.length - END_OF_DIRECTORY_BYTES; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new Error('not a ZIP archive');
}

function unzippedSize(zip: Buffer, entry: Entry, budget: number, limits: ZipLimits): number {
  const at = entry.localHeaderOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL_HEADER) throw new Error('a ZIP entry has no local header');
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === STORED) {
    if (data.length > budget) throw tooLarge(limits);
    return data.length;
  }
  if (entry.method !== DEFLATED) throw new Error(`ZIP compression method ${entry.method} is not read`);
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(1, budget) }).length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limits);
    throw error;
  }
}

function tooLarge(limits: ZipLimits): Error {
  return new Error(`the archive unzips to more than ${limits.maxUnzippedBytes / (1024 * 1024)} MiB`);
}
