import type { FileEntry, FolderEntry } from '../../document-system/document-system.adapter';
import { storedWithinLimit, withinLimits } from './run-limits';

const file = (id: string, size?: number) => ({ kind: 'file', id, name: `${id}.txt`, size }) as FileEntry;
const folder = (id: string) => ({ kind: 'folder', id, name: id }) as FolderEntry;
const limits = { maxFiles: 5, maxBytes: 1000, maxPages: 10, maxDepth: 2 };
const fresh = { discovered: 0, listedBytes: 0, listedPages: 0, listingStopped: false };

describe('withinLimits', () => {
  const page = {
    path: '/W',
    folders: [folder('sub')],
    files: [file('a', 100), file('b', 100)],
    nextCursor: 'next',
    depth: 0,
  };

  it('takes the whole page while the run stays within its limits', () => {
    expect(withinLimits(page, fresh, limits)).toEqual({
      folders: page.folders,
      files: page.files,
      limit: null,
      nextCursor: 'next',
    });
  });

  it('leaves out files and subfolders whose path would pass MAX_PATH_BYTES (UTF-8) and goes on with the rest', () => {
    const path = `/${'ü'.repeat(990)}`; // 1,981 bytes: '/a.txt' fits, '/bcdefghijklmnop.txt' (2,001) does not
    const long = { ...folder('long'), name: 'x'.repeat(20) };
    const taken = withinLimits(
      { ...page, path, folders: [folder('sub'), long], files: [file('a'), file('bcdefghijklmnop')] },
      fresh,
      limits,
    );
    expect(taken.files.map((f) => f.id)).toEqual(['a']);
    expect(taken.folders.map((f) => f.id)).toEqual(['sub']);
    expect(taken).toMatchObject({
      nextCursor: 'next',
      limit: { reached: 'path length (2000 bytes)', stopsListing: false },
    });
    expect(withinLimits({ ...page, path }, fresh, limits).limit).toBeNull();
  });

  it('stops at the first file past SYNC_MAX_FILES: no subfolder, no next page', () => {
    const taken = withinLimits(page, { ...fresh, discovered: 4 }, limits);
    expect(taken.files.map((f) => f.id)).toEqual(['a']);
    expect(taken).toMatchObject({ folders: [], nextCursor: null, limit: { stopsListing: true } });
    expect(taken.limit!.reached).toBe('SYNC_MAX_FILES (5 files)');
  });

  it('stops at the first file past SYNC_MAX_BYTES (listed sizes; none listed counts 0)', () => {
    const taken = withinLimits({ ...page, files: [file('a'), file('b', 900), file('c', 1)] }, fresh, {
      ...limits,
      maxBytes: 900,
    });
    expect(taken.files.map((f) => f.id)).toEqual(['a', 'b']);
    expect(taken.limit).toEqual({ reached: 'SYNC_MAX_BYTES (900 bytes)', stopsListing: true });
  });

  it('leaves out subfolders deeper than SYNC_MAX_DEPTH and goes on with the rest', () => {
    const taken = withinLimits({ ...page, depth: 2 }, fresh, limits);
    expect(taken).toMatchObject({ folders: [], nextCursor: 'next', limit: { stopsListing: false } });
    expect(taken.files).toHaveLength(2);
    expect(taken.limit!.reached).toBe('SYNC_MAX_DEPTH (2 folder levels)');
    expect(withinLimits({ ...page, depth: 1 }, fresh, limits).folders).toHaveLength(1);
  });

  it('takes nothing of a page past SYNC_MAX_PAGES, and stops the listing there', () => {
    expect(withinLimits(page, { ...fresh, listedPages: 9 }, limits).limit).toBeNull();
    expect(withinLimits(page, { ...fresh, listedPages: 10 }, limits)).toEqual({
      folders: [],
      files: [],
      nextCursor: null,
      limit: { reached: 'SYNC_MAX_PAGES (10 listing pages)', stopsListing: true },
    });
  });

  it('takes nothing once the run stopped listing', () => {
    expect(withinLimits(page, { ...fresh, listingStopped: true }, limits)).toEqual({
      folders: [],
      files: [],
      nextCursor: null,
      limit: null,
    });
  });
});

describe('storedWithinLimit', () => {
  const beyond = (d: { beyond: number }) => d.beyond;
  const downloads = [
    { id: 'listed', beyond: 0 },
    { id: 'unsized', beyond: 400 },
    { id: 'understated', beyond: 390 },
    { id: 'unsized-too', beyond: 400 },
    { id: 'listed-too', beyond: 0 },
  ];

  it('keeps every download while their bytes beyond the listed sizes keep the run within SYNC_MAX_BYTES', () => {
    expect(storedWithinLimit(downloads, beyond, 10, 1200)).toEqual({
      kept: downloads,
      dropped: [],
      addedBytes: 1190,
      limit: null,
    });
  });

  it('drops each one that would pass it (those within their listed sizes cost nothing more), and says so', () => {
    const stored = storedWithinLimit([...downloads, { id: 'small', beyond: 200 }], beyond, 10, 1000);
    expect(stored.kept.map((d) => d.id)).toEqual(['listed', 'unsized', 'understated', 'listed-too', 'small']);
    expect(stored.dropped.map((d) => d.id)).toEqual(['unsized-too']);
    expect(stored.addedBytes).toBe(990);
    expect(stored.limit).toEqual({ reached: 'SYNC_MAX_BYTES (1000 bytes)', stopsListing: true });
  });
});
