import type { SyncRunView } from '@app/contracts/views';
import { runProgress } from '../run-progress';
import type { SyncRunEntity } from '../sync-run.entity';

export function syncRunResponse(run: SyncRunEntity): SyncRunView {
  return {
    id: run.id,
    dataSourceId: run.dataSourceId,
    mode: run.mode,
    status: run.status,
    counts: {
      discovered: run.discovered,
      added: run.added,
      updated: run.updated,
      unchanged: run.unchanged,
      deleted: run.deleted,
      failed: run.failed,
      skipped: run.skipped,
    },
    bytesDownloaded: run.bytesDownloaded,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    error: run.error,
    ...runProgress(run),
    deletionsHeld: run.deletionsHeld,
  };
}
