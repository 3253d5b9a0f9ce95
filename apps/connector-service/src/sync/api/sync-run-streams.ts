import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { SyncRunView } from '@app/contracts/views';
import { RetryLaterException } from '@app/errors';
import { ServingState } from '@app/http';
import { ConnectorEnv } from '../../connector-env';
import { syncRunResponse } from '../dto/sync-run.response';
import { RunPaceSampler } from '../run-pace';
import { SyncRunEntity } from '../sync-run.entity';
import { SyncRunsRepository } from '../sync-runs.repository';

/** Open streams per process; each polls the database, so this bounds the load they add. */
export const MAX_RUN_STREAMS = 200;
/** Open streams of one tenant per process: one tenant's open tabs cannot take every other tenant's share. */
export const MAX_TENANT_RUN_STREAMS = 20;
export const RUN_STREAM_POLL_MS = 1000;
/** A stream ends after this long whatever its run does; an EventSource reconnects by itself. */
export const RUN_STREAM_MAX_MS = 30 * 60 * 1000;
/** A changed estimate alone is sent at most this often; any other change at the next poll. */
const ESTIMATE_EVERY_MS = 2000;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15000;

export const TOO_MANY_RUN_STREAMS = 'TOO_MANY_RUN_STREAMS';

/** Who follows a stream: it ends when their token expires or they may no longer read the run. */
export interface StreamFollower {
  tokenExpiresAt: Date;
  /** False once the caller may not read the run (removed from its data source, say). */
  mayStillFollow(): Promise<boolean>;
}

/** The open `GET /v1/sync-runs/{id}/events` streams of this process: each polls its run and sends what changed. */
@Injectable()
export class SyncRunStreams implements OnModuleDestroy {
  private readonly logger = new Logger(SyncRunStreams.name);
  private readonly open = new Set<() => void>();
  private readonly perTenant = new Map<string, number>();
  private readonly recheckMs: number;

  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly pace: RunPaceSampler,
    env: ConnectorEnv,
    serving: ServingState,
  ) {
    this.recheckMs = env.SYNC_RUN_STREAM_RECHECK_SECONDS * 1000;
    // A stream never ends by itself: left open, it would hold the server's close for SHUTDOWN_GRACE_MS.
    serving.whenServerCloses(() => this.onModuleDestroy());
  }

  get count(): number {
    return this.open.size;
  }

  /**
   * Streams the run's progress on `res` until it ends, the client leaves, the lifetime passes, the
   * follower's right goes (checked every SYNC_RUN_STREAM_RECHECK_SECONDS) or the app stops.
   */
  follow(run: SyncRunEntity, req: Request, res: Response, follower: StreamFollower): void {
    // The client may have hung up while its right was checked: its close has passed, so nothing would stop the stream.
    if (clientGone(req, res)) return;
    const tenantStreams = this.perTenant.get(run.tenantId) ?? 0;
    if (this.open.size >= MAX_RUN_STREAMS || tenantStreams >= MAX_TENANT_RUN_STREAMS) {
      throw new RetryLaterException(503, TOO_MANY_RUN_STREAMS, 'Too many open event streams; try again shortly', 10);
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const lifetime = setTimeout(
      () => stop(),
      Math.min(RUN_STREAM_MAX_MS, follower.tokenExpiresAt.getTime() - Date.now()),
    );
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    const recheck = setInterval(
      () =>
        void follower.mayStillFollow().then(
          (may) => may || stop(),
          () => undefined,
        ),
      this.recheckMs,
    );
    let next: NodeJS.Timeout | undefined;
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      [lifetime, keepAlive, recheck, next].forEach(clearTimeout);
      this.open.delete(stop);
      const left = (this.perTenant.get(run.tenantId) ?? 1) - 1;
      if (left > 0) this.perTenant.set(run.tenantId, left);
      else this.perTenant.delete(run.tenantId);
      if (!res.writableEnded) res.end();
    };
    this.open.add(stop);
    this.perTenant.set(run.tenantId, tenantStreams + 1);
    res.on('close', stop);
    res.on('error', stop);

    let last = { key: '', etaSeconds: null as number | null, at: 0 };
    const progress = (view: SyncRunView) => {
      const { etaSeconds, ...rest } = view;
      const key = JSON.stringify(rest);
      const now = Date.now();
      if (key === last.key && (etaSeconds === last.etaSeconds || now - last.at < ESTIMATE_EVERY_MS)) return;
      res.write(`event: progress\ndata: ${JSON.stringify(view)}\n\n`);
      last = { key, etaSeconds, at: now };
    };
    /** Sends what changed; false once the run has ended (its `end` sent). */
    const show = (current: SyncRunEntity): boolean => {
      const view = syncRunResponse(current);
      if (current.status === 'Queued' || current.status === 'Running') {
        progress(view);
        return true;
      }
      res.write(`event: end\ndata: ${JSON.stringify(view)}\n\n`);
      return false;
    };
    const poll = async () => {
      try {
        const found = await this.runs.find(run.id);
        const current = found && (await this.pace.sampled(found));
        if (stopped) return;
        // A run deleted with its data source has nothing more to show.
        if (!current || !show(current)) return stop();
      } catch (error) {
        this.logger.warn({ syncRunId: run.id, error: (error as Error).message }, 'sync run stream could not poll');
      }
      if (!stopped) next = setTimeout(() => void poll(), RUN_STREAM_POLL_MS);
    };

    progress(syncRunResponse(run));
    if (show(run)) next = setTimeout(() => void poll(), RUN_STREAM_POLL_MS);
    else stop();
  }

  onModuleDestroy(): void {
    for (const stop of [...this.open]) stop();
  }
}

/** Not `req.destroyed`: a request is destroyed once its body has been read, its client still there. */
function clientGone(req: Request, res: Response): boolean {
  return req.socket.destroyed || res.destroyed || res.closed;
}
