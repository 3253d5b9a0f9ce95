import { acceptedText } from './accepted-text';
import { ExtractionLimitExceeded } from './extraction-errors';

describe(acceptedText.name, () => {
  const pages = [
    { page: 1, start: 0, end: 10 },
    { page: 2, start: 10, end: 10 },
    { page: 3, start: 11, end: 21 },
  ];

  it('takes a text and its pages in order within it', () => {
    expect(acceptedText({ text: 'first page\nthird page', pages }, 1024)).toEqual({
      text: 'first page\nthird page',
      pages,
    });
    expect(acceptedText({ text: 'notes', pages: [] }, 1024)).toEqual({ text: 'notes', pages: [] });
  });

  it('fails a text past the limit as the extraction would have', () => {
    expect(() => acceptedText({ text: 'é'.repeat(513), pages: [] }, 1024)).toThrow(
      new ExtractionLimitExceeded('Extracted text is larger than 1,024 bytes'),
    );
  });

  it.each([
    ['nothing', null],
    ['a string', 'text'],
    ['text that is no string', { text: 42, pages: [] }],
    ['no pages', { text: 'notes' }],
    ['a page past the text', { text: 'notes', pages: [{ page: 1, start: 0, end: 6 }] }],
    ['pages out of order', { text: 'first page\nthird page', pages: [pages[2], pages[0]] }],
    ['a page not numbered in turn', { text: 'notes', pages: [{ page: 2, start: 0, end: 5 }] }],
    ['a fractional start', { text: 'notes', pages: [{ page: 1, start: 0.5, end: 5 }] }],
  ])('refuses %s', (_what, answer) => {
    expect(() => acceptedText(answer, 1024)).toThrow(
      new Error('the extraction process answered something that is no text'),
    );
  });
});
