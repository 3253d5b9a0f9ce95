import { DomainException } from '@app/errors';
import { extractionOutcome, MAX_REASON_LENGTH, shortReason } from './ledger-entry';

describe('the ledger row an ended text extraction leaves', () => {
  it('is NoText when the extraction succeeded without text, unchanged when it found some', () => {
    expect(extractionOutcome({ status: 'Succeeded', text: ' \n\f ', error: null })).toEqual({
      outcome: 'NoText',
      reason: null,
    });
    expect(extractionOutcome({ status: 'Succeeded', text: 'Floor plan', error: null })).toBeNull();
  });

  it('is Skipped for a format without extractor, Failed with the reason otherwise (a file too large to extract too)', () => {
    expect(extractionOutcome({ status: 'Unsupported', text: '', error: 'No text extractor' })).toEqual({
      outcome: 'Skipped',
      reason: 'Unsupported',
    });
    const tooLarge = 'Larger than 50 MiB: too large to extract its text';
    expect(extractionOutcome({ status: 'Failed', text: '', error: tooLarge })).toEqual({
      outcome: 'Failed',
      reason: tooLarge,
    });
    expect(extractionOutcome({ status: 'Failed', text: '', error: 'Could not read the PDF file: bad xref' })).toEqual({
      outcome: 'Failed',
      reason: 'Could not read the PDF file: bad xref',
    });
  });
});

describe('a failure as the ledger keeps it', () => {
  it('is the first line of our own exception, at most MAX_REASON_LENGTH characters', () => {
    const failure = (message: string) => new DomainException(502, 'DOCUMENT_SYSTEM_UNAVAILABLE', message);
    expect(shortReason(failure('HTTP 503 from the document system\n    at stack frame'))).toBe(
      'HTTP 503 from the document system',
    );
    expect(shortReason(failure('x'.repeat(1000)))).toHaveLength(MAX_REASON_LENGTH);
    expect(shortReason(failure(''))).toBe('Failed');
  });

  it("names any other error by its kind only: a library's message may quote a URL with a token", () => {
    const leaky = new TypeError('fetch failed for https://files.example.com/f1?X-Amz-Signature=secret-sig');
    expect(shortReason(leaky)).toBe('Failed (TypeError)');
    expect(shortReason('a string')).toBe('Failed (unknown error)');
  });
});
