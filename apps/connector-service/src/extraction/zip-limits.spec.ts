import mammoth from 'mammoth';
import { docxDocument } from '../../../document-system-simulator/src/store/file-formats';
import { lyingZipBomb, zipBomb, zipOf, zipWithEntries } from '../../test/factories/hostile-files';
import { checkZipLimits, DOCX_LIMITS } from './zip-limits';

describe(checkZipLimits.name, () => {
  it('passes a DOCX and a ZIP that unzips to just the limit', async () => {
    expect(() => checkZipLimits(docxDocument(['Seismic notes']), DOCX_LIMITS)).not.toThrow();
    const limits = { maxUnzippedBytes: 1000, maxEntries: 2 };
    expect(() =>
      checkZipLimits(
        zipOf([
          { name: 'a', data: Buffer.alloc(600) },
          { name: 'b', data: Buffer.alloc(400) },
        ]),
        limits,
      ),
    ).not.toThrow();
    expect((await mammoth.extractRawText({ buffer: docxDocument(['Seismic notes']) })).value).toContain(
      'Seismic notes',
    );
  });

  it('refuses a zip bomb by the sizes its directory declares, before unzipping anything', () => {
    const bomb = zipBomb(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(512 * 1024);
    const started = performance.now();
    expect(() => checkZipLimits(bomb, DOCX_LIMITS)).toThrow('the archive unzips to more than 64 MiB');
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('refuses a zip bomb whose directory lies about the sizes, unzipping no more than the limit', () => {
    expect(() => checkZipLimits(lyingZipBomb(256 * 1024 * 1024), DOCX_LIMITS)).toThrow(
      'the archive unzips to more than 64 MiB',
    );
    expect(() =>
      checkZipLimits(
        zipOf(
          [
            { name: 'a', data: Buffer.alloc(600) },
            { name: 'b', data: Buffer.alloc(600) },
          ],
          10,
        ),
        { maxUnzippedBytes: 1000, maxEntries: 10 },
      ),
    ).toThrow('the archive unzips to more than');
  });

  it('refuses an archive of too many entries, and what is not a ZIP', () => {
    expect(() => checkZipLimits(zipWithEntries(10_001), DOCX_LIMITS)).toThrow(
      'the archive has more than 10,000 entries',
    );
    expect(() => checkZipLimits(Buffer.from('not a zip at all, just text'), DOCX_LIMITS)).toThrow('not a ZIP archive');
  });

  it('reads an archive with bytes in front where jszip does, so a prefix hides neither a bomb nor its entries', async () => {
    const junk = Buffer.from('JUNK');
    const docx = Buffer.concat([junk, docxDocument(['Seismic notes'])]);
    expect(() => checkZipLimits(docx, DOCX_LIMITS)).not.toThrow();
    expect((await mammoth.extractRawText({ buffer: docx })).value).toContain('Seismic notes');
    expect(() => checkZipLimits(Buffer.concat([junk, zipBomb(256 * 1024 * 1024)]), DOCX_LIMITS)).toThrow(
      'the archive unzips to more than 64 MiB',
    );
    expect(() => checkZipLimits(Buffer.concat([junk, lyingZipBomb(256 * 1024 * 1024)]), DOCX_LIMITS)).toThrow(
      'the archive unzips to more than 64 MiB',
    );
    expect(() => checkZipLimits(Buffer.concat([junk, zipWithEntries(10_001)]), DOCX_LIMITS)).toThrow(
      'the archive has more than 10,000 entries',
    );
  });

  it('refuses a ZIP64 archive however its end record says so', () => {
    expect(() => checkZipLimits(asZip64(zipBomb(256 * 1024 * 1024)), DOCX_LIMITS)).toThrow(
      'ZIP64 archives are not read',
    );
  });
});

/**
 * `zip` with a ZIP64 end record and locator before its end record, whose directory size alone says "see
 * ZIP64" and whose directory offset points elsewhere: jszip reads the directory where the ZIP64 record says.
 */
function asZip64(zip: Buffer): Buffer {
  const end = zip.length - 22;
  const [entries, size, offset] = [zip.readUInt16LE(end + 10), zip.readUInt32LE(end + 12), zip.readUInt32LE(end + 16)];
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeBigUInt64LE(BigInt(entries), 24);
  record.writeBigUInt64LE(BigInt(entries), 32);
  record.writeBigUInt64LE(BigInt(size), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(end), 8);
  locator.writeUInt32LE(1, 16);
  const endRecord = Buffer.from(zip.subarray(end));
  endRecord.writeUInt32LE(0xffffffff, 12);
  endRecord.writeUInt32LE(0, 16);
  return Buffer.concat([zip.subarray(0, end), record, locator, endRecord]);
}
