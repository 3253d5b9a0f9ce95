import { Injectable } from '@nestjs/common';
import { ServingState } from '@app/http';
import { ApprovalEnv } from '../approval-env';

/**
 * This process's delivery attempts in flight, each until it is sent and recorded, and whether it may start one.
 * After a shutdown signal it starts none (a job goes back to the fair share, a first attempt to the queue),
 * and those in flight get until SHUTDOWN_GRACE_MS after the signal before the webhook sender cuts what is
 * left (sent again by another worker). app.close() (tests) gives them no grace.
 */
@Injectable()
export class AttemptsInFlight {
  private readonly attempts = new Set<Promise<unknown>>();

  constructor(
    private readonly serving: ServingState,
    private readonly env: ApprovalEnv,
  ) {}

  /** False once a shutdown signal has come. */
  get mayStart(): boolean {
    return this.serving.shutdownSignalledAt === undefined;
  }

  /** `attempt`, counted in flight until it settles. */
  track<T>(attempt: Promise<T>): Promise<T> {
    this.attempts.add(attempt);
    const settled = () => void this.attempts.delete(attempt);
    attempt.then(settled, settled);
    return attempt;
  }

  /** Resolves once no attempt is in flight, or the grace after the signal is over; at once without a signal. */
  async ended(): Promise<void> {
    const signalledAt = this.serving.shutdownSignalledAt;
    if (signalledAt === undefined || !this.attempts.size) return;
    const graceLeft = signalledAt + this.env.SHUTDOWN_GRACE_MS - Date.now();
    let graceOver: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(this.attempts),
      new Promise((resolve) => (graceOver = setTimeout(resolve, graceLeft))),
    ]);
    clearTimeout(graceOver);
  }
}
