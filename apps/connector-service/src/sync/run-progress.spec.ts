import { runProgress } from './run-progress';

const startedAt = new Date('2026-11-23T10:00:00Z');
const at = (seconds: number) => new Date(startedAt.getTime() + seconds * 1000);
const run = (over: Partial<Parameters<typeof runProgress>[0]> = {}): Parameters<typeof runProgress>[0] => ({
  status: 'Running',
  startedAt,
  listedAt: at(2),
  discovered: 10,
  listedBytes: 1000,
  plannedBytes: 800,
  bytesDownloaded: 0,
  added: 0,
  updated: 0,
  unchanged: 2,
  failed: 0,
  skipped: 0,
  ...over,
});

describe(runProgress.name, () => {
  it('has no totals and no estimate before the listing is complete', () => {
    expect(runProgress(run({ listedAt: null, bytesDownloaded: 400 }), at(10))).toEqual({
      totals: null,
      etaSeconds: null,
    });
  });

  it('has totals but no estimate before anything is downloaded', () => {
    expect(runProgress(run(), at(10))).toEqual({ totals: { files: 10, bytes: 1000 }, etaSeconds: null });
  });

  it('estimates the rest at the pace so far, by bytes downloaded against bytes to download', () => {
    expect(runProgress(run({ bytesDownloaded: 200 }), at(10)).etaSeconds).toBe(30);
    expect(runProgress(run({ bytesDownloaded: 400 }), at(20)).etaSeconds).toBe(20);
    expect(runProgress(run({ bytesDownloaded: 800 }), at(40)).etaSeconds).toBe(0);
  });

  it('counts settled files when there is nothing to download', () => {
    expect(runProgress(run({ plannedBytes: 0, unchanged: 5 }), at(10)).etaSeconds).toBe(10);
    expect(runProgress(run({ plannedBytes: 0, discovered: 0, unchanged: 0 }), at(10)).etaSeconds).toBe(0);
  });

  it('is 0 once the run has ended, whatever was done, and unknown while queued', () => {
    expect(runProgress(run({ status: 'Cancelled', listedAt: null }), at(10))).toEqual({ totals: null, etaSeconds: 0 });
    expect(runProgress(run({ status: 'Succeeded', bytesDownloaded: 800 }), at(10)).etaSeconds).toBe(0);
    expect(runProgress(run({ status: 'Queued', startedAt: null, listedAt: null })).etaSeconds).toBeNull();
  });
});
