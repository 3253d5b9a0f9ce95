import { htmlText, normalise } from './text-formats';

const SIZE = 2_000_000;

/** The former patterns (quadratic on long runs), as the reference for short input. */
const former = {
  normalise: (t: string) =>
    t
      .replaceAll('\u0000', '')
      .replace(/[ \t\f\v]+/g, ' ')
      .replace(/\s*\n\s*/g, '\n')
      .trim(),
  withoutTags: (h: string) =>
    h
      .replace(/<(script|style|noscript)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
};

/** Strings of up to `length` pieces drawn from `pieces`, the same on every run. */
function* samples(pieces: string[], count: number, length: number): Generator<string> {
  let seed = 42;
  const next = (n: number) => (seed = (seed * 48_271) % 2_147_483_647) % n;
  for (let i = 0; i < count; i++)
    yield Array.from({ length: next(length + 1) }, () => pieces[next(pieces.length)]).join('');
}

/**
 * Linear time on these sizes is well under a second on an idle machine and can reach one under load; the
 * former quadratic patterns took about 18 s (unclosed tags) and half an hour (a run of blanks). So the bound
 * catches quadratic time without failing on a busy machine.
 */
const LINEAR_MS = 5_000;

/** Milliseconds `work` takes. */
function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

describe(normalise.name, () => {
  it('joins the blanks around a line break into one break and single-spaces the rest', () => {
    expect(normalise('  # Notes \n\n \t RFI 12:\t\t door\u0000 swing \r\n')).toBe('# Notes\nRFI 12: door swing');
    expect(normalise('a \r b\u00a0\u00a0c')).toBe('a \r b\u00a0\u00a0c');
    expect(normalise('a \r\n\r\n b')).toBe('a\nb');
  });

  it('gives what the former patterns gave', () => {
    const texts = [...samples(['a', ' ', '\t', '\n', '\r', '\u0000', '\u00a0', '\f', '\v', '\u2028'], 20_000, 12)];
    expect(texts.filter((text) => normalise(text) !== former.normalise(text))).toEqual([]);
  });

  it(`takes linear time: ${SIZE.toLocaleString('en')} carriage returns or blanks in seconds, not minutes`, () => {
    const hostile = `start${'\r'.repeat(SIZE)}end`;
    expect(timed(() => expect(normalise(hostile)).toBe(hostile))).toBeLessThan(LINEAR_MS);
    expect(timed(() => expect(normalise(`${hostile}\n`)).toBe(`start${'\r'.repeat(SIZE)}end`))).toBeLessThan(LINEAR_MS);
    expect(timed(() => expect(normalise(`a${' \t'.repeat(SIZE / 2)}b`)).toBe('a b'))).toBeLessThan(LINEAR_MS);
    expect(timed(() => expect(normalise(`a${' b'.repeat(SIZE / 2)}`).length).toBe(SIZE + 1))).toBeLessThan(LINEAR_MS);
  });
});

describe(htmlText.name, () => {
  it('drops tags, scripts and styles, breaks lines at block ends and decodes entities', () => {
    const html =
      '<html><script>var x=1</script><STYLE>p{}</STYLE><p>Fire &amp; smoke</p><div>damper&nbsp;FD-2<br/>R&#252;ckschlag &#x26; 3 &lt; 4</div></html>';
    expect(normalise(htmlText(html))).toBe('Fire & smoke\ndamper FD-2\nRückschlag & 3 < 4');
    expect(normalise(htmlText('<p>open <script>never closed</p> tail'))).toBe('open never closed\ntail');
    expect(normalise(htmlText('a <> b &#99999999; c'))).toBe('a <> b &#99999999; c');
  });

  it('gives what the former patterns gave for well-formed HTML', () => {
    const pieces = [
      '<p>',
      '</p>',
      '<br>',
      '<BR />',
      '<div class="x">',
      '</div>',
      '<script>',
      '</SCRIPT>',
      '<style>',
      '</style>',
      '<noscript>',
      '</noscript>',
      '</li>',
      '<h2>',
      '</h2>',
      '<!-- c -->',
      'text',
      ' ',
      '\n',
    ];
    const pages = [...samples(pieces, 20_000, 10)];
    expect(pages.filter((html) => htmlText(html) !== former.withoutTags(html))).toEqual([]);
  });

  it(`takes linear time: ${SIZE / 10} unclosed tags, scripts or line breaks in seconds, not minutes`, () => {
    for (const hostile of [
      '<'.repeat(SIZE / 10),
      '<script'.repeat(SIZE / 70),
      `<br${' '.repeat(SIZE / 10)}`,
      '<p'.repeat(SIZE / 20),
    ]) {
      expect(timed(() => htmlText(hostile))).toBeLessThan(LINEAR_MS);
    }
  });
});
