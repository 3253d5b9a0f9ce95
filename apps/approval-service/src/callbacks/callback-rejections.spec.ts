import { CallbackRejections } from './callback-rejections';
import type { CallbackRejectionsRepository, Rejection } from './callback-rejections.repository';

const INTERVAL_MS = 200;

function fakeRepository(fail = false) {
  const writes: Array<{ approvalId: string; count: number; logged: Rejection[]; at: number }> = [];
  const repository = {
    record: async (approvalId: string, count: number, logged: Rejection[]) => {
      writes.push({ approvalId, count, logged, at: Date.now() });
      if (fail) throw new Error('database down');
    },
  } as unknown as CallbackRejectionsRepository;
  return { repository, writes };
}

describe(CallbackRejections.name, () => {
  it('writes the first at once and the rest of a burst together an interval later, logging at most 20', async () => {
    const { repository, writes } = fakeRepository();
    const sut = new CallbackRejections(repository, INTERVAL_MS);
    const started = Date.now();
    await Promise.all(Array.from({ length: 50 }, () => sut.record('a-1', 'callbackToken did not match')));
    expect(writes.map((w) => [w.approvalId, w.count, w.logged.length])).toEqual([
      ['a-1', 1, 1],
      ['a-1', 49, 20],
    ]);
    expect(writes[1].at - started).toBeGreaterThanOrEqual(INTERVAL_MS - 5);
    expect(writes[1].logged.every((r) => r.error === 'callbackToken did not match' && r.ageMs >= 0)).toBe(true);
  });

  it('keeps approvals apart, and writes at once again after a quiet interval', async () => {
    const { repository, writes } = fakeRepository();
    const sut = new CallbackRejections(repository, INTERVAL_MS);
    await Promise.all([sut.record('a-1', 'x'), sut.record('a-2', 'x')]);
    expect(writes.map((w) => w.approvalId)).toEqual(['a-1', 'a-2']);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 50));
    const before = Date.now();
    await sut.record('a-1', 'x');
    expect(Date.now() - before).toBeLessThan(INTERVAL_MS / 2);
    expect(writes).toHaveLength(3);
  });

  it('fails every rejection of a write that fails', async () => {
    const { repository } = fakeRepository(true);
    const sut = new CallbackRejections(repository, INTERVAL_MS);
    const results = await Promise.allSettled([sut.record('a-1', 'x'), sut.record('a-1', 'x'), sut.record('a-1', 'x')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });
});
