import { jobDataProblems } from '@app/queue';
import { ExtractTextJob, extractTextJobId, extractTextJobOf, layOutTextJobId } from './indexing.jobs';

const sha = 'a'.repeat(64);

describe(ExtractTextJob.name, () => {
  it('accepts a document id and a content hash', () => {
    expect(
      jobDataProblems(ExtractTextJob, { documentId: '7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11', contentSha256: sha })
        .problems,
    ).toEqual([]);
  });

  it('refuses a payload without a UUID, with a malformed hash, or with unknown keys', () => {
    expect(jobDataProblems(ExtractTextJob, { documentId: 'doc-1', contentSha256: sha }).problems).toEqual([
      expect.stringContaining('documentId'),
    ]);
    expect(
      jobDataProblems(ExtractTextJob, {
        documentId: '7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11',
        contentSha256: 'A'.repeat(64),
      }).problems,
    ).toEqual([expect.stringContaining('contentSha256')]);
    expect(
      jobDataProblems(ExtractTextJob, {
        documentId: '7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11',
        contentSha256: sha,
        text: 'x',
      }).problems,
    ).toHaveLength(1);
  });

  it('has one job id per document and content version, so the same work is queued once', () => {
    const job = { documentId: '7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11', contentSha256: sha };
    expect(extractTextJobId(job)).toBe(`${job.documentId}:${sha}`);
    expect(extractTextJobId({ ...job, contentSha256: 'b'.repeat(64) })).not.toBe(extractTextJobId(job));
  });

  it("reads the extraction back from its job id (all Bull tells of a job it deleted), and none from another job's", () => {
    const job = { documentId: '7d1c7a52-3f7b-4c1e-9a55-0d6f1d0a4f11', contentSha256: sha };
    expect(extractTextJobOf(extractTextJobId(job))).toEqual(job);
    expect(extractTextJobOf(layOutTextJobId(job))).toBeNull();
    expect(extractTextJobOf('sweep')).toBeNull();
    expect(extractTextJobOf('repeat:0c4f:1700000000000')).toBeNull();
  });
});
