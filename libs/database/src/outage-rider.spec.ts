import { Logger } from '@nestjs/common';
import { OUTAGE_SETTLE_MS, OutageRider } from './outage-rider';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe(OutageRider.name, () => {
  let warnings: string[];
  beforeEach(() => {
    warnings = [];
    jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((_context: unknown, message?: unknown) => void warnings.push(String(message)));
  });
  afterEach(() => jest.restoreAllMocks());

  it('holds work that meets an outage until it succeeds, and logs the outage once when it starts and once when it ends', async () => {
    const sut = new OutageRider();
    let databaseUp = false;
    setTimeout(() => (databaseUp = true), 500);
    const work = () =>
      sut.ride(async () => {
        if (!databaseUp) throw refused();
        return 'done';
      });

    await expect(Promise.all([work(), work(), work()])).resolves.toEqual(['done', 'done', 'done']);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_SETTLE_MS + 100));
    expect(warnings).toEqual([expect.stringMatching(/unreachable/), expect.stringMatching(/reachable again/)]);
  });

  it('runs work again after a deadlock or a serialization failure without calling it an outage', async () => {
    const sut = new OutageRider();
    const conflicts = [
      Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' }),
    ];
    await expect(
      sut.ride(async () => {
        const conflict = conflicts.shift();
        if (conflict) throw conflict;
        return 'done';
      }),
    ).resolves.toBe('done');
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_SETTLE_MS + 100));
    expect(warnings).toEqual([]);
  });

  it('fails at once on an error of the work itself', async () => {
    const sut = new OutageRider();
    await expect(sut.ride(() => Promise.reject(new TypeError('bug')))).rejects.toThrow('bug');
    expect(warnings).toEqual([]);
  });

  it('does not hold a network error of another service while the store answers (a document system that is away)', async () => {
    const sut = new OutageRider();
    let tries = 0;
    const work = () =>
      sut.ride(
        async () => {
          tries++;
          throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:443'), { code: 'ECONNREFUSED' });
        },
        Infinity,
        async () => false,
      );
    await expect(work()).rejects.toThrow('10.0.0.9');
    expect(tries).toBe(1);
    expect(warnings).toEqual([]);
  });
});
