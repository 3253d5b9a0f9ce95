import { PriorityGate } from './priority-gate';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('PriorityGate', () => {
  it('lets the other work through at once when no first-class work is in hand', async () => {
    const started = performance.now();
    await new PriorityGate({ maxWaitMs: 10_000 }).turn();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('holds the other work while first-class work runs and lets it through when the last ends', async () => {
    const gate = new PriorityGate({ maxWaitMs: 10_000 });
    const order: string[] = [];
    const first = gate.first(async () => {
      await after(200);
      order.push('first done');
    });
    const second = gate.first(async () => {
      await after(300);
      order.push('second done');
    });
    await gate.turn().then(() => order.push('other'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first done', 'second done', 'other']);
  });

  it('lets the work waiting go when told to, while first-class work is still in hand', async () => {
    const gate = new PriorityGate({ maxWaitMs: 10_000 });
    let endFirst = () => {};
    const first = gate.first(() => new Promise<void>((end) => (endFirst = end)));
    const order: string[] = [];
    const other = gate.turn().then(() => order.push('other'));
    await after(50);
    gate.letWaitingGo();
    await other;
    order.push('first still in hand');
    endFirst();
    await first;
    expect(order).toEqual(['other', 'first still in hand']);
  });

  it('stays shut for its settle time after the last first-class work, in case more follows', async () => {
    const gate = new PriorityGate({ maxWaitMs: 10_000, settleMs: 200 });
    const order: string[] = [];
    const first = gate.first(() => after(100));
    const other = gate.turn().then(() => order.push('other'));
    await first;
    await after(50);
    await gate.first(async () => {
      await after(250);
      order.push('follow-up done');
    });
    await other;
    expect(order).toEqual(['follow-up done', 'other']);
  });

  it('settles from the end of the last first-class work, and says how long it has been shut through the pauses', async () => {
    const gate = new PriorityGate({ maxWaitMs: 10_000, settleMs: 200 });
    const order: string[] = [];
    const firstStep = gate.first(() => after(50));
    const other = gate.turn().then(() => order.push('other'));
    await firstStep; // settles until about 250 ms
    await after(50);
    await gate.first(() => after(100)); // from about 100 to 200 ms: settles until 400 ms
    await after(100);
    const thirdStep = gate.first(async () => {
      await after(100);
      order.push('third done');
    });
    expect(gate.shutForMs).toBeGreaterThanOrEqual(280); // shut since the first step began
    await thirdStep;
    await other;
    expect(order).toEqual(['third done', 'other']);
  });

  it('does not hold the other work longer than its bound when first-class work never pauses', async () => {
    const gate = new PriorityGate({ maxWaitMs: 10_000 });
    let release!: () => void;
    const first = gate.first(() => new Promise<void>((resolve) => (release = resolve)));
    const started = performance.now();
    await gate.turn(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    release();
    await first;
  });
});
