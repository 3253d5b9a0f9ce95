import { crc32, deflateRawSync } from 'node:zlib';

/** Files built to hurt a text extractor: each is small to send and costly to read the naive way. */
export const hostileText = (carriageReturns = 2_000_000) => Buffer.from(`start${'\r'.repeat(carriageReturns)}end`);
export const hostileHtml = (openings = 200_000) => Buffer.from('<'.repeat(openings));

/**
 * One JSON object of about `bytes` with a distinct key per 10 bytes: V8's JSON parser outgrows a small heap
 * inside native code, where a worker thread's heap limit ends the whole process, not the thread.
 */
export function hostileJson(bytes = 12 * 1024 * 1024): Buffer {
  const keys = Array.from({ length: Math.floor(bytes / 10) }, (_, i) => `"${i.toString(36)}":1`);
  return Buffer.from(`{${keys.join(',')}}`);
}

/** A ZIP with one entry of `unzippedBytes` zeros under a DOCX's main part: about a thousandth of that zipped. */
export function zipBomb(unzippedBytes = 256 * 1024 * 1024): Buffer {
  return zipOf([{ name: 'word/document.xml', data: Buffer.alloc(unzippedBytes) }]);
}

/** A zip bomb whose central directory says every entry unzips to 100 bytes. */
export function lyingZipBomb(unzippedBytes = 256 * 1024 * 1024): Buffer {
  return zipOf([{ name: 'word/document.xml', data: Buffer.alloc(unzippedBytes) }], 100);
}

export function zipWithEntries(count: number): Buffer {
  return zipOf(Array.from({ length: count }, (_, i) => ({ name: `word/part-${i}.xml`, data: Buffer.from('<w/>') })));
}

/** A ZIP archive of deflated entries; `declaredSize` overrides the unzipped sizes its central directory states. */
export function zipOf(entries: Array<{ name: string; data: Buffer }>, declaredSize?: number): Buffer {
  const local: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const fileName = Buffer.from(name);
    const zipped = deflateRawSync(data, { level: 9 });
    const fields = { crc: crc32(data), zipped: zipped.length, size: declaredSize ?? data.length };
    const header = Buffer.concat([localHeader(fields, fileName.length), fileName, zipped]);
    directory.push(Buffer.concat([directoryEntry(fields, fileName.length, offset), fileName]));
    local.push(header);
    offset += header.length;
  }
  const directoryBytes = Buffer.concat(directory);
  return Buffer.concat([...local, directoryBytes, endOfDirectory(entries.length, directoryBytes.length, offset)]);
}

interface Fields {
  crc: number;
  zipped: number;
  size: number;
}

function localHeader({ crc, zipped, size }: Fields, nameLength: number): Buffer {
  const b = Buffer.alloc(30);
  b.writeUInt32LE(0x04034b50, 0);
  b.writeUInt16LE(20, 4);
  b.writeUInt16LE(8, 8);
  b.writeUInt32LE(crc, 14);
  b.writeUInt32LE(zipped, 18);
  b.writeUInt32LE(size, 22);
  b.writeUInt16LE(nameLength, 26);
  return b;
}

function directoryEntry({ crc, zipped, size }: Fields, nameLength: number, offset: number): Buffer {
  const b = Buffer.alloc(46);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(20, 4);
  b.writeUInt16LE(20, 6);
  b.writeUInt16LE(8, 10);
  b.writeUInt32LE(crc, 16);
  b.writeUInt32LE(zipped, 20);
  b.writeUInt32LE(size, 24);
  b.writeUInt16LE(nameLength, 28);
  b.writeUInt32LE(offset, 42);
  return b;
}

function endOfDirectory(count: number, size: number, offset: number): Buffer {
  const b = Buffer.alloc(22);
  b.writeUInt32LE(0x06054b50, 0);
  b.writeUInt16LE(count, 8);
  b.writeUInt16LE(count, 10);
  b.writeUInt32LE(size, 12);
  b.writeUInt32LE(offset, 16);
  return b;
}
