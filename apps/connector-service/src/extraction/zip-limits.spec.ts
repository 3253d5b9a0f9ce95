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
});
