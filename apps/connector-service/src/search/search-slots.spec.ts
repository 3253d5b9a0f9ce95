import { RetryLaterException } from '@app/errors';
import { CLIENT_CLOSED_REQUEST, SearchSlots, TOO_MANY_SEARCHES } from './search-slots';

/** A search that ends when the test says so, and records when it started. */
function gate(started: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    end: () => end(),
    search: async () => {
      started.push(name);
      await ended;
      return name;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SearchSlots', () => {
  it('runs at most as many searches at once as it has slots; the next starts when one ends', async () => {
    const slots = new SearchSlots(2, 10);
    const started: string[] = [];
    const searches = ['a1', 'a2', 'a3'].map((name) => gate(started, name));
    const results = searches.map((s) => slots.run('tenant-a', s.search));
    await settle();
    expect(started).toEqual(['a1', 'a2']);
    searches[0].end();
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3']);
    searches.forEach((s) => s.end());
    expect(await Promise.all(results)).toEqual(['a1', 'a2', 'a3']);
  });

  it("gives the next free slot to another tenant's search, not to the burst of the tenant that holds them all", async () => {
    const slots = new SearchSlots(2, 10);
    const started: string[] = [];
    const burst = ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => gate(started, name));
    const other = gate(started, 'b1');
    const results = burst.map((s) => slots.run('tenant-a', s.search));
    await settle();
    results.push(slots.run('tenant-b', other.search));
    burst[0].end();
    await settle();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    [...burst, other].forEach((s) => s.end());
    await Promise.all(results);
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
  });

  it('lets waiting tenants take turns, the one that started a search longest ago first, each in the order its own searches came', async () => {
    const slots = new SearchSlots(1, 10);
    const started: string[] = [];
    const first = gate(started, 'a0');
    const results = [slots.run('tenant-a', first.search)];
    const waiting = [
      ['tenant-a', 'a1'],
      ['tenant-a', 'a2'],
      ['tenant-b', 'b1'],
      ['tenant-a', 'a3'],
      ['tenant-b', 'b2'],
      ['tenant-c', 'c1'],
    ].map(([tenant, name]) => {
      const search = gate(started, name);
      results.push(slots.run(tenant, search.search));
      return search;
    });
    [first, ...waiting].forEach((s) => s.end());
    await Promise.all(results);
    expect(started).toEqual(['a0', 'b1', 'c1', 'a1', 'b2', 'a2', 'a3']);
  });

  it("refuses a tenant's search past its waiting limit with 429 TOO_MANY_SEARCHES, and still takes another tenant's", async () => {
    const slots = new SearchSlots(1, 2);
    const started: string[] = [];
    const searches = ['a1', 'a2', 'a3', 'a4'].map((name) => gate(started, name));
    const results = searches.slice(0, 3).map((s) => slots.run('tenant-a', s.search));
    const refused = slots.run('tenant-a', searches[3].search);
    await expect(refused).rejects.toBeInstanceOf(RetryLaterException);
    await expect(refused).rejects.toMatchObject({ statusCode: 429, code: TOO_MANY_SEARCHES, retryAfterSeconds: 1 });
    const other = gate(started, 'b1');
    results.push(slots.run('tenant-b', other.search));
    [...searches, other].forEach((s) => s.end());
    await Promise.all(results);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('drops a waiting search whose caller left: it never runs, and its place goes to the next one', async () => {
    const slots = new SearchSlots(1, 1);
    const started: string[] = [];
    const [a1, a2, a3] = ['a1', 'a2', 'a3'].map((name) => gate(started, name));
    const caller = new AbortController();
    const results = [slots.run('tenant-a', a1.search)];
    const left = slots.run('tenant-a', a2.search, caller.signal);
    caller.abort();
    await expect(left).rejects.toMatchObject({ statusCode: 499, code: CLIENT_CLOSED_REQUEST });
    results.push(slots.run('tenant-a', a3.search)); // within the waiting limit of 1 again
    [a1, a2, a3].forEach((s) => s.end());
    await Promise.all(results);
    expect(started).toEqual(['a1', 'a3']);
  });

  it('runs a search whose caller leaves after it started to the end, and refuses one whose caller left before it asked', async () => {
    const slots = new SearchSlots(1, 1);
    const started: string[] = [];
    const running = gate(started, 'a1');
    const caller = new AbortController();
    const result = slots.run('tenant-a', running.search, caller.signal);
    await settle();
    caller.abort();
    running.end();
    expect(await result).toBe('a1');
    await expect(slots.run('tenant-a', async () => 'late', caller.signal)).rejects.toMatchObject({ statusCode: 499 });
    expect(await slots.run('tenant-b', async () => 'next')).toBe('next');
  });

  it('passes the slot on when a search fails', async () => {
    const slots = new SearchSlots(1, 10);
    const failing = slots.run('tenant-a', () => Promise.reject(new Error('statement failed')));
    const next = slots.run('tenant-b', async () => 'ran');
    await expect(failing).rejects.toThrow('statement failed');
    expect(await next).toBe('ran');
  });
});
