import type { Queue } from 'bull';
import { IntakeLanes } from './intake-lanes';

describe('IntakeLanes', () => {
  const queueOf = (waiting: { count: number }) =>
    ({ getWaitingCount: jest.fn(async () => waiting.count) }) as unknown as Queue & {
      getWaitingCount: jest.Mock;
    };
  const sampled = () => new Promise((resolve) => setTimeout(resolve, 110));

  it('drains while the queue and the requests waiting here hold `drainFrom` or more, and says when it starts', async () => {
    const waiting = { count: 0 };
    const here = { count: 0 };
    const queue = queueOf(waiting);
    const lanes = new IntakeLanes(queue, { drainFrom: 10, waitingHere: () => here.count });
    expect(lanes.draining).toBe(false);
    const before = lanes.drainStarts;

    waiting.count = 50;
    await sampled();
    expect(lanes.draining).toBe(false); // this look asks for a sample; it answers by the next one
    await new Promise((resolve) => setImmediate(resolve));
    expect(lanes.draining).toBe(true);
    expect(before.aborted).toBe(true);
    expect(lanes.drainStarts.aborted).toBe(false);

    waiting.count = 5;
    here.count = 5;
    await sampled();
    expect(lanes.draining).toBe(true); // the queue's last sample and the requests waiting here
    await new Promise((resolve) => setImmediate(resolve));
    expect(lanes.draining).toBe(true);
    here.count = 0;
    expect(lanes.draining).toBe(false);
  });

  it('looks at the queue once per 100 ms at most, however many requests are taken', async () => {
    const queue = queueOf({ count: 0 });
    const lanes = new IntakeLanes(queue, { drainFrom: 10, waitingHere: () => 0 });
    for (let i = 0; i < 100; i++) expect(lanes.draining).toBe(false);
    expect(queue.getWaitingCount.mock.calls.length).toBe(1);
  });
});
