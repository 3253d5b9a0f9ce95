import { nextRound } from './reminders.service';

describe(nextRound.name, () => {
  const requestedAt = Date.parse('2026-11-28T10:00:00Z');
  const claim = (decisionDueAt: number | null = null) => ({
    createdAt: new Date(requestedAt),
    remindAfterSeconds: 300,
    decisionDueAt: decisionDueAt === null ? null : new Date(decisionDueAt),
  });
  const minutes = (m: number) => requestedAt + m * 60_000;

  it('is the next interval counted from the request', () => {
    expect(nextRound(claim(), 1, minutes(5) + 40)).toEqual({ round: 2, atMs: minutes(10) });
    expect(nextRound(claim(), 2, minutes(10) + 5)).toEqual({ round: 3, atMs: minutes(15) });
  });

  it('skips the rounds missed while no worker ran, instead of sending them in a burst', () => {
    expect(nextRound(claim(), 1, minutes(22))).toEqual({ round: 5, atMs: minutes(25) });
  });

  it('stops at the decision deadline', () => {
    expect(nextRound(claim(minutes(15)), 2, minutes(10))).toBeNull();
    expect(nextRound(claim(minutes(15) + 1), 2, minutes(10))).toEqual({ round: 3, atMs: minutes(15) });
  });
});
