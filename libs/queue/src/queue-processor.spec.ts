import Bull, { Job, Queue } from 'bull';
import { randomUUID } from 'node:crypto';
import { IsInt, IsString } from 'class-validator';
import { eventually } from '@app/testing';
import { queueContract } from './queue-contract';
import { JobHandlers, QueueProcessor } from './queue-processor';

class GreetJob {
  @IsString()
  name: string;
}

class CountJob {
  @IsInt()
  n: number;
}

const contract = queueContract('toolkit-test', { greet: GreetJob, count: CountJob });
type Payloads = typeof contract.payloads;

class TestProcessor extends QueueProcessor<Payloads> {
  constructor(
    queue: Queue,
    private readonly table: Partial<JobHandlers<Payloads>>,
  ) {
    super(queue, contract);
  }

  protected handlers(): JobHandlers<Payloads> {
    return this.table as JobHandlers<Payloads>;
  }
}

describe(QueueProcessor.name, () => {
  let queue: Queue;

  beforeEach(() => {
    queue = new Bull(contract.name, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
      prefix: `toolkit-${randomUUID()}`,
    });
  });

  afterEach(async () => {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  });

  const settled = async (job: Job) => {
    await eventually(async () => ['completed', 'failed'].includes(await job.getState()), 10_000, 50);
    return (await queue.getJob(job.id)) as Job;
  };

  it('refuses to start when a job name has no handler', () => {
    const sut = new TestProcessor(queue, { greet: { concurrency: 1, run: async () => 'hi' } });
    expect(() => sut.onApplicationBootstrap()).toThrow('Queue toolkit-test has no handler for job count');
  });

  it('runs each job name with its validated payload and keeps what the handler returns', async () => {
    const sut = new TestProcessor(queue, {
      greet: { concurrency: 1, run: async ({ name }) => `hello ${name}` },
      count: { concurrency: 1, run: async ({ n }) => n + 1 },
    });
    sut.onApplicationBootstrap();
    const greet = await settled(await queue.add('greet', { name: 'Ada' }));
    const count = await settled(await queue.add('count', { n: 41 }));
    expect([greet.returnvalue, count.returnvalue]).toEqual(['hello Ada', 42]);
  });

  it('fails an invalid payload at once, without running it or trying again', async () => {
    const run = jest.fn(async () => 'ran');
    const sut = new TestProcessor(queue, { greet: { concurrency: 1, run }, count: { concurrency: 1, run } });
    sut.onApplicationBootstrap();
    const job = await settled(await queue.add('count', { n: 'many' }, { attempts: 3 }));
    expect({ failed: job.failedReason, attempts: job.attemptsMade, ran: run.mock.calls.length }).toEqual({
      failed: expect.stringContaining('Invalid CountJob: n:'),
      attempts: 1,
      ran: 0,
    });
  });

  it('gives up through the hook on the last attempt only, and at once for an error called final', async () => {
    const seen: string[] = [];
    const sut = new TestProcessor(queue, {
      greet: {
        concurrency: 1,
        run: async ({ name }, job) => {
          seen.push(`${name} attempt ${job.attemptsMade + 1}`);
          throw new Error(name === 'final' ? 'final' : 'flaky');
        },
        isFinal: (error) => (error as Error).message === 'final',
        giveUp: async ({ name }, error) => `gave up on ${name}: ${(error as Error).message}`,
      },
      count: { concurrency: 1, run: async () => 0 },
    });
    sut.onApplicationBootstrap();
    const flaky = await settled(await queue.add('greet', { name: 'flaky' }, { attempts: 2 }));
    const final = await settled(await queue.add('greet', { name: 'final' }, { attempts: 2 }));
    expect(seen).toEqual(['flaky attempt 1', 'flaky attempt 2', 'final attempt 1']);
    expect([flaky.returnvalue, final.returnvalue]).toEqual(['gave up on flaky: flaky', 'gave up on final: final']);
  });
});
