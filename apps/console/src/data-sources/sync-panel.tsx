import { useState } from 'react';
import { ApiError } from '../api/api-error';
import type { DataSourceDetail, ExtractionProgress, SyncRun } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, StatusBadge } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { formatBytes, formatDuration, formatTime } from '../ui/format';
import { useAction, useLoad } from '../ui/hooks';
import { Reconnect } from '../connections/reconnect';
import { useFollowedRun } from './follow-run';
import { CancelRun, HeldDeletions } from './run-actions';
import { RunLedger } from './run-ledger';

const ACTIVE = ['Queued', 'Running'];
const COUNTS = ['discovered', 'added', 'updated', 'unchanged', 'deleted', 'failed'] as const;
/** The run's grid: a file whose download failed is shown only when there is one (text extraction says its own). */
const SHOWN_COUNTS = COUNTS.filter((key) => key !== 'failed');

/** "Sync now", the running sync's live progress (its event stream), cancel, held deletions, history and ledger. */
export function SyncPanel({
  dataSource,
  onRunEnded,
  onChooseFolders,
}: {
  dataSource: DataSourceDetail;
  onRunEnded: () => void;
  onChooseFolders: () => void;
}) {
  const { connector } = useConsole();
  const runs = useLoad(() => connector.sync.runs(dataSource.id), [connector, dataSource.id]);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [live, setLive] = useState<SyncRun | null>(null);
  const [pollError, setPollError] = useState<unknown>(null);
  const start = useAction();
  const running = runs.data?.find((r) => ACTIVE.includes(r.status));
  const followed = activeId ?? running?.id ?? null;

  useFollowedRun(connector, followed, {
    progress: (run) => (setLive(run), setPollError(null)),
    ended: async () => {
      await runs.reload();
      setActiveId(null);
      onRunEnded();
    },
    failed: setPollError,
  });

  const syncNow = () =>
    start.run(async () => {
      try {
        const started = await connector.sync.start(dataSource.id);
        setLive(null);
        setActiveId(started.syncRunId);
        onRunEnded();
      } catch (error) {
        const runId =
          error instanceof ApiError && error.code === 'SYNC_IN_PROGRESS'
            ? (error.body?.syncRunId as string | undefined)
            : undefined;
        if (!runId) throw error;
        setActiveId(runId);
      }
    });

  const afterConfirm = () => {
    setLive(null);
    void runs.reload();
    onRunEnded();
  };
  // The followed run as polled; otherwise the latest run, so the view always shows where things stand.
  const shown = followed ? (live?.id === followed ? live : null) : (live ?? runs.data?.[0] ?? null);
  return (
    <section className="card" aria-labelledby="sync-title">
      <div className="card-head">
        <h2 id="sync-title">Sync</h2>
        <Button
          kind="primary"
          onClick={syncNow}
          busy={start.busy || followed !== null}
          busyLabel={followed ? 'Syncing…' : 'Starting…'}
        >
          Sync now
        </Button>
      </div>
      {start.error instanceof ApiError && start.error.code === 'NOTHING_SELECTED' ? (
        <ErrorNotice error={start.error}>
          <Button onClick={onChooseFolders}>Choose folders</Button>
        </ErrorNotice>
      ) : start.error instanceof ApiError && start.error.code === 'REAUTH_REQUIRED' ? (
        <ErrorNotice error={start.error} title="This data source needs you to connect again before it can sync">
          <Reconnect dataSource={dataSource} onChanged={() => (start.clear(), onRunEnded())} label="Connect again" />
        </ErrorNotice>
      ) : (
        <ErrorNotice error={start.error ?? pollError} />
      )}
      {shown ? <RunProgress run={shown} /> : null}
      {shown ? <CancelRun run={shown} onCancelled={() => void runs.reload()} /> : null}
      {shown && !followed ? <HeldDeletions run={shown} onConfirmed={afterConfirm} /> : null}
      <TextExtraction progress={dataSource.extraction} />
      <h3>Run history</h3>
      <ErrorNotice error={runs.error} />
      {runs.data && !runs.data.length ? <p className="empty">No sync has run yet.</p> : null}
      {runs.data?.length ? <RunHistory runs={runs.data} /> : null}
      {shown && !followed ? <RunLedger run={shown} /> : null}
    </section>
  );
}

function RunProgress({ run }: { run: SyncRun }) {
  const { counts } = run;
  const done = counts.added + counts.updated + counts.unchanged + counts.failed + counts.skipped;
  const finished = !ACTIVE.includes(run.status);
  // Totals are known once the listing is complete: until then the run says what it has found, not "x of y".
  const total = run.totals?.files ?? null;
  const percent = finished ? 100 : total ? Math.min(99, Math.round((done / total) * 100)) : 0;
  return (
    <div className="progress-block" aria-live="polite">
      <div className="row">
        <StatusBadge status={run.status} />
        <span className="muted" data-testid="run-progress">
          {run.mode} sync · {progressSaid(run, done, finished)} · {formatBytes(run.bytesDownloaded)} downloaded
          {!finished && run.etaSeconds !== null ? ` · ${timeLeftSaid(run.etaSeconds)}` : ''}
        </span>
      </div>
      <div
        className="progress"
        role="progressbar"
        aria-label="Sync progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={total === null && !finished ? `Listing · ${run.status}` : `${percent}% · ${run.status}`}
      >
        <div
          className={`progress-fill ${finished ? `progress-${run.status.toLowerCase()}` : ''}`}
          style={{ width: `${percent}%` }}
        />
      </div>
      <dl className="counts">
        {SHOWN_COUNTS.map((key) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd data-count={key}>{counts[key]}</dd>
          </div>
        ))}
        {counts.failed ? (
          <div>
            <dt>failed to download</dt>
            <dd data-count="failed">{counts.failed}</dd>
          </div>
        ) : null}
        <div>
          <dt>bytes</dt>
          <dd data-count="bytes">{formatBytes(run.bytesDownloaded)}</dd>
        </div>
      </dl>
      {/* Held deletions say why once, beside their files and the confirm button. */}
      {run.error && !run.deletionsHeld ? <p className="field-problems">{run.error}</p> : null}
    </div>
  );
}

/** "12 files found so far" while listing; "153 of 453 files" once the totals are known. */
function progressSaid(run: SyncRun, done: number, finished: boolean): string {
  if (run.totals) return `${done} of ${run.totals.files} files`;
  if (finished) return `${run.counts.discovered} files`;
  return run.counts.discovered ? `listing… ${run.counts.discovered} files found so far` : 'listing…';
}

/** "about 40 s left", "about 3 min left". */
function timeLeftSaid(seconds: number): string {
  return seconds < 120 ? `about ${seconds} s left` : `about ${Math.round(seconds / 60)} min left`;
}

/** "Text extracted: 120 of 130, 2 failed": a file is searchable by name at once, by its text once extracted. */
function TextExtraction({ progress }: { progress: ExtractionProgress }) {
  const total = progress.done + progress.pending + progress.failed;
  if (!total) return null;
  return (
    <p className="muted" data-testid="text-extraction" aria-live="polite">
      Text extracted: {progress.done} of {total}
      {progress.failed ? `, ${progress.failed} failed` : ''}
      {progress.pending ? ' (searchable by name meanwhile)' : ''}
    </p>
  );
}

function RunHistory({ runs }: { runs: SyncRun[] }) {
  return (
    <div className="table-wrap">
      <table aria-label="Run history">
        <thead>
          <tr>
            <th>Started</th>
            <th>Mode</th>
            <th>Status</th>
            <th>Files</th>
            <th>Bytes</th>
            <th>Took</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id}>
              <td>{formatTime(r.startedAt ?? r.createdAt)}</td>
              <td>{r.mode}</td>
              <td>
                <StatusBadge status={r.status} />
                {r.error ? (
                  <div className="muted small">
                    {r.deletionsHeld ? `${r.deletionsHeld} deletions held until confirmed` : r.error}
                  </div>
                ) : null}
              </td>
              <td>{filesSaid(r.counts)}</td>
              <td>{formatBytes(r.bytesDownloaded)}</td>
              <td>{formatDuration(r.startedAt, r.finishedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "120 found: 3 added, 116 unchanged, 1 failed": the run's counts in words, the zeros left out. */
function filesSaid(counts: SyncRun['counts']): string {
  const changes = COUNTS.filter((k) => k !== 'discovered' && counts[k] > 0).map((k) => `${counts[k]} ${k}`);
  return `${counts.discovered} found${changes.length ? `: ${changes.join(', ')}` : ''}`;
}
