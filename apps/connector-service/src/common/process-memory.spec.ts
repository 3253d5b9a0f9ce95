import { spawnSync } from 'node:child_process';
import { residentMb, residentMbIn, watchMemory } from './process-memory';

const linux = process.platform === 'linux';
const onLinux = linux ? it : it.skip;
const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('process memory', () => {
  it('reads the resident memory of a /proc status', () => {
    expect(residentMbIn('Name:\tnode\nVmHWM:\t  400000 kB\nVmRSS:\t  204800 kB\nRssAnon:\t  1 kB\n')).toBe(200);
    expect(residentMbIn('Name:\tkthreadd\nState:\tS (sleeping)\n')).toBeUndefined();
  });

  onLinux("reads a process's resident memory, as Node reports its own", () => {
    const own = process.memoryUsage.rss() / 1024 / 1024;
    expect(residentMb(process.pid)).toBeGreaterThan(own * 0.8);
    expect(residentMb(process.pid)).toBeLessThan(own * 1.2);
  });

  it('reads nothing of a process that has gone', () => {
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    expect(residentMb(pid)).toBeUndefined();
  });

  onLinux('calls back once a process holds more than its limit, and no more after it is stopped', async () => {
    const over = jest.fn();
    const stop = watchMemory(process.pid, 1, over);
    await after(350);
    stop();
    expect(over).toHaveBeenCalledTimes(1);

    const under = jest.fn();
    const stopUnder = watchMemory(process.pid, 1_000_000, under);
    await after(250);
    stopUnder();
    expect(under).not.toHaveBeenCalled();
  });

  it('watches nothing it cannot read', async () => {
    const exceeded = jest.fn();
    watchMemory(undefined, 1, exceeded);
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    watchMemory(pid, 1, exceeded);
    await after(250);
    expect(exceeded).not.toHaveBeenCalled();
  });
});
