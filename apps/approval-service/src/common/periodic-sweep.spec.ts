import type { Logger } from '@nestjs/common';
import { eventually } from '@app/testing';
import { PeriodicSweep } from './periodic-sweep';

const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe(PeriodicSweep.name, () => {
  const warnings: string[] = [];
  const logger = { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as Logger;

  it('runs one sweep at a time, skipping turns while one runs, and stop waits for the one running', async () => {
    let running = 0;
    let most = 0;
    let finished = 0;
    const sweep = new PeriodicSweep('test sweep', logger, async () => {
      most = Math.max(most, ++running);
      await after(120);
      running--;
      finished++;
    });
    sweep.start(20, { now: true });
    await after(150);
    await sweep.stop();
    const stoppedAt = finished;
    await after(100);
    expect({ most, running, ranAgainAfterStop: finished !== stoppedAt }).toEqual({
      most: 1,
      running: 0,
      ranAgainAfterStop: false,
    });
    expect(stoppedAt).toBeGreaterThanOrEqual(1);
  });

  it('logs a failed sweep and sweeps again at the next turn', async () => {
    let calls = 0;
    const sweep = new PeriodicSweep('flaky sweep', logger, async () => {
      if (++calls === 1) throw new Error('database away');
    });
    sweep.start(20);
    await eventually(() => calls >= 2, 5000);
    await sweep.stop();
    expect(warnings).toContain('flaky sweep failed; the next one tries again');
  });
});
