import { testEnv } from '@app/testing';
import { CallbackRateLimitStorage } from './callback-rate-limit.storage';

describe(CallbackRateLimitStorage.name, () => {
  const storages: CallbackRateLimitStorage[] = [];
  const storage = (env: Record<string, unknown>) => {
    const sut = new CallbackRateLimitStorage(env as { REDIS_URL: string; QUEUE_PREFIX: string });
    storages.push(sut);
    return sut;
  };
  afterAll(() => storages.forEach((s) => s.onModuleDestroy()));

  it('shares one count per key between instances on the same Redis and prefix', async () => {
    const { REDIS_URL, QUEUE_PREFIX } = testEnv();
    const [first, second] = [storage({ REDIS_URL, QUEUE_PREFIX }), storage({ REDIS_URL, QUEUE_PREFIX })];
    expect((await first.increment('client', 60_000, 2, 60_000, 'default')).totalHits).toBe(1);
    expect((await second.increment('client', 60_000, 2, 60_000, 'default')).totalHits).toBe(2);
    expect((await first.increment('client', 60_000, 2, 60_000, 'default')).isBlocked).toBe(true);
    const elsewhere = storage({ REDIS_URL, QUEUE_PREFIX: `${QUEUE_PREFIX}-other` });
    expect((await elsewhere.increment('client', 60_000, 2, 60_000, 'default')).totalHits).toBe(1);
  });

  it('counts in Redis every hit it answered from memory, for the other instances to see', async () => {
    const { REDIS_URL, QUEUE_PREFIX } = testEnv();
    const [first, second] = [storage({ REDIS_URL, QUEUE_PREFIX }), storage({ REDIS_URL, QUEUE_PREFIX })];
    const answers = [];
    for (let i = 0; i < 50; i++) answers.push(await first.increment('busy', 60_000, 1000, 60_000, 'default'));
    expect(answers.map((a) => a.totalHits)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await second.increment('busy', 60_000, 1000, 60_000, 'default')).totalHits).toBe(51);
  });

  it('lets callbacks through, within its deadline, when Redis does not answer', async () => {
    const sut = storage({ REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: 'unreachable' });
    const started = Date.now();
    expect(await sut.increment('client', 60_000, 1, 60_000, 'default')).toMatchObject({ isBlocked: false });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
