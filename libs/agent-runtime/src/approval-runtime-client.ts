import Bull from 'bull';
import { QueueConnection } from '@app/redis';
import { ApprovalDecisionEvent, ApprovalRequestJob, SharedQueue } from '@app/contracts/payloads';

const DECISION_CONCURRENCY = 16;

type Waiter = {
  resolve: (event: ApprovalDecisionEvent) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
};

/**
 * The agent runtime's side of the approval queues: enqueue a request when a run reaches a webhook
 * approval step, and resume when its decision arrives. A reference for the real runtime.
 */
export class ApprovalRuntimeClient {
  private readonly requests: Bull.Queue<ApprovalRequestJob>;
  private readonly decisions: Bull.Queue<ApprovalDecisionEvent>;
  private readonly connection: QueueConnection;
  private readonly waiters = new Map<string, Waiter>();
  private readonly early = new Map<string, ApprovalDecisionEvent>();

  /**
   * `concurrency`: decisions handled at once (each resumes a different run); 16 unless given.
   * `onDecision` also gets when the service published the event (ms since the epoch), to measure the lag.
   * `clusterNodes`: the service's REDIS_CLUSTER_NODES, when its Redis is a cluster (`redisUrl` then gives
   * only the password and TLS), so both sides use the same `{prefix}`.
   */
  constructor(
    redisUrl: string,
    options: {
      prefix?: string;
      clusterNodes?: string;
      concurrency?: number;
      onDecision?: (event: ApprovalDecisionEvent, published: { at: number }) => void | Promise<void>;
    } = {},
  ) {
    const prefix = options.prefix ?? 'bull';
    this.connection = new QueueConnection({ url: redisUrl, clusterNodes: options.clusterNodes });
    this.requests = this.connection.queue(SharedQueue.ApprovalRequests, prefix);
    this.decisions = this.connection.queue(SharedQueue.ApprovalDecisions, prefix);
    void this.decisions.process('*', options.concurrency ?? DECISION_CONCURRENCY, async (job) => {
      await options.onDecision?.(job.data, { at: job.timestamp });
      this.settle(job.data);
    });
  }

  /** Pauses a run: the approval-service takes it from the queue. `jobId` keeps a retried enqueue single. */
  async request(job: ApprovalRequestJob): Promise<void> {
    await this.requests.add(job, {
      jobId: `${job.tenantId}:${job.executionId}:${job.stepId}`,
      removeOnComplete: 1000,
      removeOnFail: 1000,
    });
  }

  /** Resolves with the decision of (tenant, execution, step), however long it takes unless `timeoutMs` is given. */
  awaitDecision(
    tenantId: string,
    executionId: string,
    stepId: string,
    timeoutMs?: number,
  ): Promise<ApprovalDecisionEvent> {
    const key = `${tenantId}:${executionId}:${stepId}`;
    const known = this.early.get(key);
    if (known) {
      this.early.delete(key);
      return Promise.resolve(known);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      if (timeoutMs)
        waiter.timer = setTimeout(() => {
          this.waiters.delete(key);
          reject(new Error(`no decision for ${key} within ${timeoutMs} ms`));
        }, timeoutMs);
      this.waiters.set(key, waiter);
    });
  }

  async close(): Promise<void> {
    for (const waiter of this.waiters.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('client closed'));
    }
    await Promise.all([this.requests.close(), this.decisions.close()]);
    this.connection.disconnect();
  }

  private settle(event: ApprovalDecisionEvent): void {
    const key = `${event.tenantId}:${event.executionId}:${event.stepId}`;
    const waiter = this.waiters.get(key);
    if (!waiter) {
      this.early.set(key, event);
      return;
    }
    this.waiters.delete(key);
    clearTimeout(waiter.timer);
    waiter.resolve(event);
  }
}
