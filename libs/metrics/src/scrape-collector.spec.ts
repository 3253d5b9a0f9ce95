import { singleFlight } from './scrape-collector';

describe(singleFlight.name, () => {
  it('shares a run in progress with every caller, and starts a new one once it has settled', async () => {
    const answers: Array<() => void> = [];
    let runs = 0;
    const sut = singleFlight(() => {
      const run = ++runs;
      return new Promise<number>((resolve) => answers.push(() => resolve(run)));
    });

    const first = [sut(), sut(), sut()];
    expect(runs).toBe(1);
    answers[0]();
    expect(await Promise.all(first)).toEqual([1, 1, 1]);

    const second = sut();
    expect(runs).toBe(2);
    answers[1]();
    expect(await second).toBe(2);
  });

  it('starts anew after a run that failed', async () => {
    let runs = 0;
    const sut = singleFlight(async () => {
      runs++;
      throw new Error('canceling statement due to statement timeout');
    });
    await expect(Promise.all([sut(), sut()])).rejects.toThrow('statement timeout');
    await expect(sut()).rejects.toThrow('statement timeout');
    expect(runs).toBe(2);
  });
});
