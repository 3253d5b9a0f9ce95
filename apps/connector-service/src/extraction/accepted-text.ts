import { ExtractionLimitExceeded } from './extraction-errors';
import { ExtractedText, sizeInWords } from './read-text';

/**
 * What an extraction process answered, checked again here: a file that took over its reader could answer
 * anything. Text past `maxTextBytes` fails as it would have there; anything but a text with its pages in
 * order within it is refused.
 */
export function acceptedText(answer: unknown, maxTextBytes: number): ExtractedText {
  const { text, pages } = (answer ?? {}) as { text?: unknown; pages?: unknown };
  if (typeof text !== 'string' || !Array.isArray(pages)) throw malformed();
  if (Buffer.byteLength(text) > maxTextBytes)
    throw new ExtractionLimitExceeded(`Extracted text is larger than ${sizeInWords(maxTextBytes)}`);
  let end = 0;
  pages.forEach((range: unknown, i) => {
    const { page, start, end: to } = (range ?? {}) as Record<string, unknown>;
    const fits = page === i + 1 && isIndex(start) && isIndex(to) && end <= start && start <= to && to <= text.length;
    if (!fits) throw malformed();
    end = to;
  });
  return { text, pages: pages as ExtractedText['pages'] };
}

const isIndex = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

const malformed = () => new Error('the extraction process answered something that is no text');
