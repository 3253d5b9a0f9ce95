import { ExtractionGate } from './extraction-gate';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('ExtractionGate', () => {
  it('lets extraction through at once when no sync step is in hand', async () => {
    const started = performance.now();
    await new ExtractionGate().turn();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('holds extraction while a sync step runs and lets it through shortly after the last one ends', async () => {
    const gate = new ExtractionGate();
    const order: string[] = [];
    const step = gate.syncStep(async () => {
      await after(300);
      order.push('step done');
    });
    await gate.turn().then(() => order.push('extraction'));
    await step;
    expect(order).toEqual(['step done', 'extraction']);
  });

  it('does not hold extraction longer than its bound when syncs never pause', async () => {
    const gate = new ExtractionGate();
    let release!: () => void;
    const step = gate.syncStep(() => new Promise<void>((resolve) => (release = resolve)));
    const started = performance.now();
    await gate.turn(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    release();
    await step;
  });
});
