import { useEffect } from 'react';
import type { ConnectorApi } from '../api/connector-api';
import type { SyncRun } from '../api/types';

const POLL_MS = 500;
const ACTIVE = ['Queued', 'Running'];

export interface RunFollower {
  progress: (run: SyncRun) => void;
  ended: () => Promise<void> | void;
  failed: (error: unknown) => void;
}

/**
 * Follows a run until it ends: its event stream (`GET /v1/sync-runs/{id}/events`) while it lasts, and
 * polling when the stream cannot be had or breaks off before the run's end.
 */
export function useFollowedRun(connector: ConnectorApi, runId: string | null, follower: RunFollower): void {
  useEffect(() => {
    if (!runId) return;
    const abort = new AbortController();
    let timer: number | undefined;
    let over = false;
    const end = async () => {
      over = true;
      await follower.ended();
    };
    const poll = async () => {
      try {
        const run = await connector.sync.run(runId);
        if (abort.signal.aborted) return;
        follower.progress(run);
        if (!ACTIVE.includes(run.status)) return void (await end());
        timer = window.setTimeout(poll, POLL_MS);
      } catch (error) {
        if (abort.signal.aborted) return;
        follower.failed(error);
        timer = window.setTimeout(poll, POLL_MS * 4);
      }
    };
    connector.sync
      .events(
        runId,
        (name, data) => {
          follower.progress(JSON.parse(data) as SyncRun);
          if (name === 'end') void end();
        },
        abort.signal,
      )
      .catch(() => undefined)
      .then(() => {
        if (!over && !abort.signal.aborted) void poll();
      });
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
    // One stream (or poll loop) per followed run.
  }, [runId, connector]);
}
