import type { PriorDocument } from './plan-types';
import type { FileEntry } from '../../document-system/document-system.adapter';
import { batches, planFiles, savedByThisRun } from './sync-plan';
import { FileToIngest, INGEST_BATCH_BYTES, INGEST_BATCH_FILES } from '../sync.jobs';
import { outcomeOf } from '../sync-run-state';

const job = { syncRunId: '00000000-0000-4000-8000-000000000001', folderId: 'f1', path: '/Architecture/Drawings' };
const file = (id: string, extra: Partial<FileEntry> = {}): FileEntry => ({
  kind: 'file',
  id,
  name: `${id}.pdf`,
  parentId: 'f1',
  size: 10,
  version: '1',
  ...extra,
});
const doc = (id: string, extra: Partial<PriorDocument> = {}): PriorDocument => ({
  id: `doc-${id}`,
  folderId: 'f1',
  name: `${id}.pdf`,
  path: `/Architecture/Drawings/${id}.pdf`,
  size: 10,
  version: '1',
  modifiedAt: null,
  remoteSha256: null,
  stored: true,
  lastSeenRunId: '00000000-0000-4000-8000-000000000000',
  ...extra,
});

describe('planFiles', () => {
  it('queues new files as added and changed versions as updated', () => {
    const plan = planFiles(job, [file('a'), file('b', { version: '2' })], new Map([['b', doc('b')]]));
    expect(plan.ingest.map((i) => [i.fileId, i.change, i.path])).toEqual([
      ['a', 'added', '/Architecture/Drawings/a.pdf'],
      ['b', 'updated', '/Architecture/Drawings/b.pdf'],
    ]);
  });

  it('only marks unchanged files seen', () => {
    const plan = planFiles(job, [file('a')], new Map([['a', doc('a')]]));
    expect(plan).toEqual({ unchanged: ['a'], relocated: [], restamped: [], ingest: [] });
  });

  it('takes the listed version and time of a file whose checksum says its content is the same, counted unchanged', () => {
    const listed = file('a', { sha256: 'x', version: '2', modifiedAt: '2026-11-30T09:31:00.000Z' });
    const plan = planFiles(job, [listed], new Map([['a', doc('a', { remoteSha256: 'x' })]]));
    expect(plan).toMatchObject({ unchanged: ['a'], relocated: [], ingest: [] });
    expect(plan.restamped).toEqual([
      {
        id: 'doc-a',
        name: 'a.pdf',
        path: '/Architecture/Drawings/a.pdf',
        folderId: 'f1',
        version: '2',
        modifiedAt: '2026-11-30T09:31:00.000Z',
      },
    ]);
    const moved = planFiles(job, [{ ...listed, name: 'b.pdf' }], new Map([['a', doc('a', { remoteSha256: 'x' })]]));
    expect(moved.relocated).toMatchObject([{ name: 'b.pdf', version: '2', modifiedAt: '2026-11-30T09:31:00.000Z' }]);
    const same = doc('a', { remoteSha256: 'x', version: '2', modifiedAt: new Date('2026-11-30T09:31:00.000Z') });
    expect(planFiles(job, [listed], new Map([['a', same]])).restamped).toEqual([]);
  });

  it('plans a file whose content was not stored (skipped as too large) again', () => {
    const plan = planFiles(job, [file('a')], new Map([['a', doc('a', { stored: false })]]));
    expect(plan.ingest.map((i) => [i.fileId, i.change])).toEqual([['a', 'updated']]);
  });

  it('moves a renamed file without downloading it', () => {
    const plan = planFiles(job, [file('a', { name: 'A-101 rev B.pdf' })], new Map([['a', doc('a')]]));
    expect(plan.ingest).toEqual([]);
    expect(plan.relocated).toEqual([
      {
        id: 'doc-a',
        name: 'A-101 rev B.pdf',
        path: '/Architecture/Drawings/A-101 rev B.pdf',
        folderId: 'f1',
        version: '1',
        modifiedAt: null,
      },
    ]);
  });

  it('prefers the checksum, then the version, then modified time and size', () => {
    const bySha = planFiles(
      job,
      [file('a', { sha256: 'x', version: '9' })],
      new Map([['a', doc('a', { remoteSha256: 'x' })]]),
    );
    expect(bySha.unchanged).toEqual(['a']);
    const byTime = planFiles(
      job,
      [file('a', { version: undefined, modifiedAt: '2026-01-01T00:00:00Z', size: 11 })],
      new Map([['a', doc('a', { version: null, modifiedAt: new Date('2026-01-01T00:00:00Z') })]]),
    );
    expect(byTime.ingest.map((i) => i.change)).toEqual(['updated']);
  });
});

describe('savedByThisRun', () => {
  const run = job.syncRunId;
  const listed = (extra: Partial<FileToIngest> = {}): FileToIngest => ({
    fileId: 'a',
    folderId: 'f1',
    name: 'a.pdf',
    path: '/Architecture/Drawings/a.pdf',
    change: 'added',
    ...extra,
  });
  const bare = { version: null, modifiedAt: null, remoteSha256: null };

  it('skips on retry what this run saved of a file the listing gives nothing to recognise by, not what an earlier run saved', () => {
    expect(savedByThisRun(run, listed(), doc('a', { ...bare, lastSeenRunId: run }))).toBe(true);
    expect(savedByThisRun(run, listed(), doc('a', { ...bare, lastSeenRunId: run, stored: false }))).toBe(true);
    expect(savedByThisRun(run, listed(), doc('a', bare))).toBe(false);
  });

  it('downloads again a file this run saved in another version (listed twice while it changed)', () => {
    expect(savedByThisRun(run, listed({ version: '2' }), doc('a', { lastSeenRunId: run }))).toBe(false);
    expect(savedByThisRun(run, listed({ version: '1' }), doc('a', { lastSeenRunId: run }))).toBe(true);
  });
});

describe('batches', () => {
  const toIngest = (id: string, size?: number): FileToIngest => ({
    fileId: id,
    folderId: 'f1',
    name: id,
    path: `/${id}`,
    change: 'added',
    ...(size === undefined ? {} : { size }),
  });

  it('keeps the order and caps each batch by files and by bytes; a big or unsized file goes alone', () => {
    const small = Array.from({ length: INGEST_BATCH_FILES + 3 }, (_, i) => toIngest(`s${i}`, 1000));
    const out = batches([
      ...small,
      toIngest('big', INGEST_BATCH_BYTES * 10),
      toIngest('half1', INGEST_BATCH_BYTES / 2),
      toIngest('half2', INGEST_BATCH_BYTES / 2 + 1),
      toIngest('unsized'),
    ]);
    expect(out.map((b) => b.length)).toEqual([INGEST_BATCH_FILES, 3, 1, 1, 1, 1]);
    expect(out.flat().map((f) => f.fileId)).toEqual([
      ...small.map((f) => f.fileId),
      'big',
      'half1',
      'half2',
      'unsized',
    ]);
  });
});

describe('outcomeOf', () => {
  const counts = { discovered: 3, added: 3, updated: 0, unchanged: 0, deleted: 0, failed: 0, skipped: 0 };
  it('succeeds when nothing failed, is partial when some files failed, fails when nothing worked', () => {
    expect(outcomeOf(counts, 0)).toBe('Succeeded');
    expect(outcomeOf({ ...counts, failed: 1 }, 0)).toBe('PartiallySucceeded');
    expect(outcomeOf({ ...counts, added: 0, failed: 3 }, 0)).toBe('Failed');
    expect(outcomeOf(counts, 1)).toBe('PartiallySucceeded');
    expect(outcomeOf({ ...counts, added: 0 }, 1)).toBe('Failed');
    // A run limit reached: partial whatever it stored, failed or listed (CONTRACT.md).
    expect(outcomeOf(counts, 0, true)).toBe('PartiallySucceeded');
    expect(outcomeOf({ ...counts, added: 0, skipped: 2 }, 0, true)).toBe('PartiallySucceeded');
    expect(outcomeOf({ ...counts, added: 0, failed: 2 }, 0, true)).toBe('PartiallySucceeded');
    expect(outcomeOf({ ...counts, added: 0 }, 1, true)).toBe('PartiallySucceeded');
  });

  it('succeeds for an empty selection', () => {
    expect(outcomeOf({ discovered: 0, added: 0, updated: 0, unchanged: 0, deleted: 2, failed: 0, skipped: 0 }, 0)).toBe(
      'Succeeded',
    );
  });

  it('is not changed by files skipped as too large', () => {
    expect(outcomeOf({ ...counts, added: 1, skipped: 2 }, 0)).toBe('Succeeded');
    expect(outcomeOf({ ...counts, added: 0, skipped: 3 }, 0)).toBe('Succeeded');
  });
});
