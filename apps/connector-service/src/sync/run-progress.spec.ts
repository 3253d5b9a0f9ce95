import { FILE_WORK_BYTES, nextPace, PACE_SAMPLE_MS, runProgress, runWork } from './run-progress';

const startedAt = new Date('2026-11-23T10:00:00Z');
const at = (seconds: number) => new Date(startedAt.getTime() + seconds * 1000);
const MB = 1024 * 1024;
type Run = Parameters<typeof runProgress>[0];
const run = (over: Partial<Run> = {}): Run => ({
  status: 'Running',
  startedAt,
  listedAt: at(2),
  discovered: 10,
  listedBytes: 1000,
  plannedBytes: 800,
  bytesDownloaded: 0,
  bytesStreamed: 0,
  added: 0,
  updated: 0,
  unchanged: 2,
  failed: 0,
  skipped: 0,
  pace: null,
  ...over,
});

/** The run read every second from `from` to `to` s, its pace sampled as readers do; the estimates seen. */
function estimates(at0: Run, step: (seconds: number) => Partial<Run>, from: number, to: number): number[] {
  let current = at0;
  const seen: number[] = [];
  for (let s = from; s <= to; s++) {
    current = { ...current, ...step(s) };
    current = { ...current, pace: nextPace(current, at(s)) ?? current.pace };
    seen.push(runProgress(current, at(s)).etaSeconds!);
  }
  return seen;
}

describe(runProgress.name, () => {
  it('has no totals and no estimate before the listing is complete', () => {
    expect(runProgress(run({ listedAt: null, bytesDownloaded: 400 }), at(10))).toEqual({
      totals: null,
      etaSeconds: null,
    });
  });

  it('estimates the work left (bytes to receive, files to settle) at the rate so far before any sample', () => {
    // Done: 2 files; left: 800 bytes and 8 files; 10 s so far.
    const left = 800 + 8 * FILE_WORK_BYTES;
    const rate = (2 * FILE_WORK_BYTES) / 10;
    expect(runProgress(run(), at(10))).toEqual({
      totals: { files: 10, bytes: 1000 },
      etaSeconds: Math.ceil(left / rate),
    });
  });

  it('counts bytes as they stream in, before their batch commits', () => {
    const before = runProgress(run({ plannedBytes: 10 * MB, unchanged: 0, discovered: 1 }), at(10)).etaSeconds;
    const streaming = runProgress(
      run({ plannedBytes: 10 * MB, unchanged: 0, discovered: 1, bytesStreamed: 5 * MB }),
      at(10),
    );
    expect(before).toBeNull();
    expect(streaming.etaSeconds).toBe(Math.ceil((5 * MB + FILE_WORK_BYTES) / ((5 * MB) / 10)));
  });

  it('is 0 once every file is settled, or the run has ended, and unknown while queued', () => {
    expect(runProgress(run({ unchanged: 10 }), at(10)).etaSeconds).toBe(0);
    expect(runProgress(run({ status: 'Cancelled', listedAt: null }), at(10))).toEqual({ totals: null, etaSeconds: 0 });
    expect(runProgress(run({ status: 'Succeeded', bytesDownloaded: 800 }), at(10)).etaSeconds).toBe(0);
    expect(runProgress(run({ status: 'Queued', startedAt: null, listedAt: null })).etaSeconds).toBeNull();
  });

  it('samples the pace at most every PACE_SAMPLE_MS while running', () => {
    const first = nextPace(run(), at(3))!;
    expect(first).toEqual({ prev: null, last: { at: at(3).toISOString(), work: runWork(run()) } });
    expect(nextPace(run({ pace: first }), at(3 + PACE_SAMPLE_MS / 1000 - 1))).toBeNull();
    expect(nextPace(run({ pace: first }), at(3 + PACE_SAMPLE_MS / 1000))?.prev).toEqual(first.last);
    expect(nextPace(run({ status: 'Succeeded' }), at(10))).toBeNull();
  });

  it('falls steadily on an incremental run: unchanged files listed fast, then one big file at its own pace', () => {
    // 450 unchanged files settled in the first 2 s; then a 100 MB file streams at 2 MB/s.
    const incremental = run({ discovered: 451, unchanged: 450, plannedBytes: 100 * MB, listedBytes: 200 * MB });
    const seen = estimates(incremental, (s) => ({ bytesStreamed: Math.max(0, s - 2) * 2 * MB }), 3, 45);
    const rises = seen.slice(1).filter((eta, i) => eta > seen[i]);
    // One step up when the recent rate takes over from the whole run's, then down every second.
    expect(rises.length).toBeLessThanOrEqual(2);
    expect(seen.at(-1)).toBeLessThan(12);
    expect(Math.abs(seen.at(-1)! - (100 - 43 * 2) / 2)).toBeLessThanOrEqual(2);
  });

  it('grows while nothing is done (a stall), as it should', () => {
    const stalled = run({ plannedBytes: 10 * MB, bytesStreamed: 5 * MB });
    const seen = estimates(stalled, () => ({}), 10, 30);
    expect(seen.at(-1)).toBeGreaterThan(seen[0]);
  });
});
