import type { FileEntry } from '../../document-system/document-system.adapter';
import type { PriorDocument, RunSighting } from './plan-types';
import { pageSightings, returnedFiles, untaken } from './run-sightings';
import { planFiles } from './sync-plan';

const left = { syncRunId: '00000000-0000-4000-8000-000000000001', folderId: 'left', path: '/W/Left' };
const right = { ...left, folderId: 'right', path: '/W/Right' };
const file = (id: string): FileEntry => ({ kind: 'file', id, name: `${id}.txt`, parentId: 'left', version: '1' });
const docAt = (id: string, place: { folderId: string; path: string }): PriorDocument => ({
  id: `doc-${id}`,
  folderId: place.folderId,
  name: `${id}.txt`,
  path: `${place.path}/${id}.txt`,
  size: 1,
  version: '1',
  modifiedAt: null,
  remoteSha256: null,
  stored: true,
  lastSeenRunId: '00000000-0000-4000-8000-000000000000',
});
const sighting = (externalId: string, prior: { folderId: string; path: string } | null): RunSighting => ({
  externalId,
  priorFolderId: prior?.folderId ?? null,
  priorPath: prior?.path ?? null,
});

describe('run sightings', () => {
  it('takes a file once per run: a later listing of a sighted file takes nothing', () => {
    const seen = new Map([['a', sighting('a', null)]]);
    expect(untaken([file('a'), file('b')], seen).map((f) => f.id)).toEqual(['b']);
  });

  it('records where a moved document was, and nothing for one left in place', () => {
    const known = new Map([
      ['a', docAt('a', left)],
      ['b', docAt('b', right)],
    ]);
    const plan = planFiles(right, [file('a'), file('b')], known);
    expect(pageSightings([file('a'), file('b')], known, plan, [])).toEqual([
      sighting('a', { folderId: 'left', path: '/W/Left/a.txt' }),
      sighting('b', null),
    ]);
  });

  it('puts a document moved by this run back where a later listing shows it was', () => {
    const known = new Map([['a', docAt('a', right)]]); // moved to Right by this run's listing of Right
    const seen = new Map([['a', sighting('a', { folderId: 'left', path: '/W/Left/a.txt' })]]);
    const back = returnedFiles(left, [file('a')], seen, known);
    expect(back.map((r) => r.move)).toEqual([
      { id: 'doc-a', name: 'a.txt', path: '/W/Left/a.txt', folderId: 'left', version: '1', modifiedAt: null },
    ]);
    expect(pageSightings([], known, planFiles(left, [], known), back)).toEqual([sighting('a', null)]);
    // Listed at a third place, or with other content: it stays where the run put it.
    expect(returnedFiles({ ...left, folderId: 'other', path: '/W/Other' }, [file('a')], seen, known)).toEqual([]);
    expect(returnedFiles(left, [{ ...file('a'), version: '2' }], seen, known)).toEqual([]);
    expect(returnedFiles(left, [file('a')], new Map([['a', sighting('a', null)]]), known)).toEqual([]);
  });
});
