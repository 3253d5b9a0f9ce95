import { zipBomb } from '../../test/factories/hostile-files';
import { LONE_SURROGATES } from '../common/storable-text';
import { extractionKind, TextExtractor } from './text-extractor';

/** A minimal valid PDF 1.4 with one page showing `text` in Helvetica. */
export function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const offset = body.length;
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

describe(TextExtractor.name, () => {
  const sut = new TextExtractor();
  afterAll(() => sut.onModuleDestroy());

  it('reads the text of a PDF', async () => {
    const result = await sut.extract(tinyPdf('fire-rated gypsum assembly UL U419'), 'application/pdf', 'A-501.pdf');
    expect(result).toEqual({
      status: 'Succeeded',
      text: 'fire-rated gypsum assembly UL U419',
      pages: [{ page: 1, start: 0, end: 34 }],
      error: null,
    });
  });

  it('reads plain text, Markdown and CSV as they are', async () => {
    expect((await sut.extract(Buffer.from('# Notes\n\nRFI 12:  door swing'), 'text/markdown', 'n.md')).text).toBe(
      '# Notes\nRFI 12: door swing',
    );
    expect((await sut.extract(Buffer.from('a,b\n1,2'), 'application/octet-stream', 'x.csv')).text).toBe('a,b\n1,2');
  });

  describe('a file with a byte-order mark', () => {
    const utf8 = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const utf16be = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);

    it('reads UTF-8 JSON and text without the mark', async () => {
      expect(await sut.extract(utf8('{"check": "Prüfung"}'), 'application/json', 'w.json')).toEqual({
        status: 'Succeeded',
        text: 'Prüfung',
        pages: [],
        error: null,
      });
      expect((await sut.extract(utf8('Prüfung'), 'text/plain', 'w.txt')).text).toBe('Prüfung');
    });

    it('reads UTF-16, little- and big-endian, in every text format', async () => {
      expect((await sut.extract(utf16le('Prüfung'), 'text/plain', 'excel.txt')).text).toBe('Prüfung');
      expect((await sut.extract(utf16be('Prüfung'), 'text/plain', 'mac.txt')).text).toBe('Prüfung');
      expect((await sut.extract(utf16le('a,b\n1,Prüfung'), '', 'excel.csv')).text).toBe('a,b\n1,Prüfung');
      expect((await sut.extract(utf16le('{"check": "Prüfung"}'), 'application/json', 'w.json')).text).toBe('Prüfung');
      expect((await sut.extract(utf16be('<p>Prüfung</p>'), 'text/html', 'w.html')).text).toBe('Prüfung');
    });
  });

  it('reads HTML without tags, scripts or entities', async () => {
    const html = '<html><script>var x=1</script><p>Fire &amp; smoke</p><div>damper&nbsp;FD-2</div></html>';
    expect((await sut.extract(Buffer.from(html), 'text/html', 'a.html')).text).toBe('Fire & smoke\ndamper FD-2');
  });

  it('reads the values of JSON', async () => {
    const result = await sut.extract(
      Buffer.from('{"rfi": {"title": "Beam clash", "ids": [7, 8]}}'),
      'application/json',
      'r.json',
    );
    expect(result.text).toBe('Beam clash\n7\n8');
  });

  it('marks a broken file Failed and an unknown type Unsupported, without throwing', async () => {
    const broken = await sut.extract(Buffer.from('not a pdf'), 'application/pdf', 'broken.pdf');
    expect(broken.status).toBe('Failed');
    expect(broken.error).toMatch(/PDF/);
    expect(await sut.extract(Buffer.from([1, 2, 3]), 'image/png', 'photo.png')).toMatchObject({
      status: 'Unsupported',
      text: '',
    });
  });

  it('refuses a DOCX zip bomb with the reason, without unzipping it', async () => {
    const bomb = zipBomb(256 * 1024 * 1024);
    const started = performance.now();
    const result = await sut.extract(
      bomb,
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'bomb.docx',
    );
    expect(result).toEqual({
      status: 'Failed',
      text: '',
      pages: [],
      error: 'Could not read the DOCX file: the archive unzips to more than 64 MiB',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('fails a JSON file nested too deep to walk, and reads the next file', async () => {
    const deep = await sut.extract(
      Buffer.from(`${'['.repeat(200_000)}1${']'.repeat(200_000)}`),
      'application/json',
      'deep.json',
    );
    expect(deep).toEqual({
      status: 'Failed',
      text: '',
      pages: [],
      error: 'Could not read the JSON file: Maximum call stack size exceeded',
    });
    expect((await sut.extract(Buffer.from('[1]'), 'application/json', 'flat.json')).text).toBe('1');
  });

  it.each([
    ['a NUL', '[1,2,\u0000]'],
    ['half a surrogate pair', '\u{1F600} is no JSON'],
  ])('fails a file with a reason the database can store, though the parser quotes %s', async (_, content) => {
    const { status, error } = await sut.extract(Buffer.from(content), 'application/json', 'quoted.json');
    expect(status).toBe('Failed');
    expect(error).toMatch(/^Could not read the JSON file: Unexpected token/);
    expect(error).not.toContain('\u0000');
    expect(error).not.toMatch(new RegExp(LONE_SURROGATES.source));
  });

  it('fails a text file past the text limit for that reason, within the default heap of its thread', async () => {
    const line = 'Level 3 slab pour: rebar  inspection passed,\tformwork struck after 7 days\n';
    const text = Buffer.from(line.repeat(Math.ceil((20 * 1024 * 1024) / line.length)));
    expect(await sut.extract(text, 'text/plain', 'site-diary.txt')).toEqual({
      status: 'Failed',
      text: '',
      pages: [],
      error: 'Extracted text is larger than 16 MiB',
    });
  }, 30_000);

  it('tells the kind from the MIME type, else the extension', () => {
    expect(extractionKind('application/octet-stream', 'Spec.DOCX')).toBe('docx');
    expect(extractionKind('text/csv; charset=utf-8', 'x')).toBe('text');
    expect(extractionKind('application/zip', 'x.zip')).toBeNull();
  });
});
