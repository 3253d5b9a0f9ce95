import { TenantTurns } from './tenant-turns';

const settle = () => new Promise((resolve) => setImmediate(resolve));
const left = () => new Error('left');

describe(TenantTurns.name, () => {
  it('keeps the reserved slots for a tenant that holds none, and lets it start at once', async () => {
    const sut = new TenantTurns(4, { left, reserved: 1 });
    const started: string[] = [];
    const take = (tenant: string, name: string) => sut.take(tenant).then(() => started.push(name));
    ['a1', 'a2', 'a3', 'a4'].forEach((name) => take('tenant-a', name));
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    void take('tenant-b', 'b1');
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(sut.load).toEqual({ running: 4, waiting: 1 });
    sut.pass('tenant-b');
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1']); // the freed slot is the reserve again
    sut.pass('tenant-a');
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1', 'a4']);
  });

  it('gives up a wait longer than its limit, and the place goes to the next one', async () => {
    jest.useFakeTimers();
    try {
      const sut = new TenantTurns(1, { left, maxWaitMs: 100, tooLong: () => new Error('too long') });
      await sut.take('tenant-a');
      const late = sut.take('tenant-a');
      jest.advanceTimersByTime(100);
      await expect(late).rejects.toThrow('too long');
      expect(sut.load).toEqual({ running: 1, waiting: 0 });
      const next = sut.take('tenant-b');
      sut.pass('tenant-a');
      await expect(next).resolves.toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
