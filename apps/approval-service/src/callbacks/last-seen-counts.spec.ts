import { LastSeenCounts } from './last-seen-counts';

const record = (totalHits: number, isBlocked = false) => ({
  totalHits,
  timeToExpire: 60,
  isBlocked,
  timeToBlockExpire: isBlocked ? 60 : 0,
});

describe(LastSeenCounts.name, () => {
  const now = 1_000_000;

  it('asks Redis for a client it has no answer for', () => {
    expect(new LastSeenCounts().answer('client', 10, now)).toBeUndefined();
  });

  it("answers below half the limit from Redis's last count plus the hits still on their way", () => {
    const counts = new LastSeenCounts();
    counts.remember('client', record(3), false, now);
    expect(counts.answer('client', 10, now)).toMatchObject({ totalHits: 4, isBlocked: false });
    expect(counts.answer('client', 10, now)).toMatchObject({ totalHits: 5 });
    expect(counts.answer('client', 10, now)).toBeUndefined();
    counts.remember('client', record(4), true, now);
    expect(counts.answer('client', 10, now)).toBeUndefined();
  });

  it('asks Redis again once blocked, once the window has passed, or for another client', () => {
    const counts = new LastSeenCounts();
    counts.remember('blocked', record(1, true), false, now);
    counts.remember('client', record(1), false, now);
    expect(counts.answer('blocked', 100, now)).toBeUndefined();
    expect(counts.answer('client', 100, now + 60_000)).toBeUndefined();
    expect(counts.answer('other', 100, now)).toBeUndefined();
    expect(counts.answer('client', 100, now)).toMatchObject({ totalHits: 2 });
  });

  it('never lets a limit of 1 or 2 through without Redis', () => {
    const counts = new LastSeenCounts();
    counts.remember('client', record(0), false, now);
    expect(counts.answer('client', 1, now)).toBeUndefined();
    expect(counts.answer('client', 2, now)).toMatchObject({ totalHits: 1 });
    expect(counts.answer('client', 2, now)).toBeUndefined();
  });
});
