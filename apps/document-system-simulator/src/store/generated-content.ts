import { Readable } from 'node:stream';
import { pdfDocument } from './file-formats';

const WORDS = [
  'concrete',
  'rebar',
  'beam',
  'column',
  'slab',
  'footing',
  'drywall',
  'stud',
  'joist',
  'truss',
  'duct',
  'conduit',
  'panel',
  'valve',
  'pump',
  'riser',
  'sprinkler',
  'damper',
  'anchor',
  'bracing',
  'façade',
  'glazing',
  'membrane',
  'insulation',
  'grout',
  'mortar',
  'lintel',
  'parapet',
  'curtainwall',
  'elevation',
];

/** A small deterministic PRNG (mulberry32): the same seed always gives the same content. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Exactly `size` bytes of plain text words, produced chunk by chunk (memory stays flat). */
export function textStream(size: number, seed: number): Readable {
  const random = rng(seed);
  let left = size;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const words: string[] = [];
      let length = 0;
      while (length < Math.min(64 * 1024, left)) {
        const word = WORDS[Math.floor(random() * WORDS.length)];
        words.push(word);
        length += Buffer.byteLength(word) + 1;
      }
      let chunk = Buffer.from(`${words.join(' ')}\n`, 'utf8');
      if (chunk.length > left)
        chunk = Buffer.from(
          chunk
            .subarray(0, left)
            .toString('latin1')
            .replace(/[^\x20-\x7e\n]/g, 'x'),
          'latin1',
        );
      left -= chunk.length;
      this.push(chunk);
    },
  });
}

/** A PDF of about `size` bytes with text lines drawn from the seed; never cut to `size`: below one page (about 600 bytes) it is a valid one-page PDF. */
export function generatedPdf(size: number, seed: number): Buffer {
  const random = rng(seed);
  const pages: string[][] = [];
  let approx = 600;
  while (approx < size) {
    const lines = Array.from({ length: 40 }, () =>
      Array.from({ length: 10 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' '),
    );
    pages.push([`Generated sheet ${seed}-${pages.length + 1}`, ...lines]);
    approx += lines.join('').length + 400;
  }
  return pdfDocument(pages.length ? pages : [[`Generated sheet ${seed}`]]);
}
