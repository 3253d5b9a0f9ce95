import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { Logger } from 'nestjs-pino';
import { StartUpQuietLogger } from '@app/logging';
import { DecisionReplay, ReplayedEvent, ReplayReport, ReplayRequest } from './decision-replay';
import { DecisionReplayModule } from './decision-replay.module';

export const REPLAY_USAGE =
  'usage: npm run approvals:replay-decisions -- --since <ISO 8601 time with its zone> [--tenant <tenantId>] [--dry-run]';
/** A time with its zone, so that a time an operator copies from a log means the same everywhere. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export interface ReplayIo {
  /** What the operator reads: each event and the counts. */
  out: NodeJS.WritableStream;
  /** Usage and failures. */
  err: NodeJS.WritableStream;
  /** The service's JSON log lines (stderr in a terminal, so that stdout stays readable). */
  log: NodeJS.WritableStream;
}

/** The request the arguments make; throws a message for the operator when they make none. */
export function replayRequestOf(argv: string[]): ReplayRequest {
  const { values } = parseArgs({
    args: argv,
    options: { since: { type: 'string' }, tenant: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: false,
  });
  if (!values.since || !ISO_TIME.test(values.since) || Number.isNaN(Date.parse(values.since)))
    throw new Error(`--since must be an ISO 8601 time with its zone, such as 2026-11-30T10:00:00Z`);
  if (values.tenant !== undefined && !values.tenant.trim()) throw new Error('--tenant must name a tenant');
  return { since: new Date(values.since), tenantId: values.tenant ?? null, dryRun: values['dry-run'] };
}

/**
 * `npm run approvals:replay-decisions`: publishes again the decision events Redis lost (docs/operating.md).
 * `env` wins over process.env (tests). Returns the exit code: 0 done, 1 failed, 2 wrong arguments.
 */
export async function replayDecisions(argv: string[], io: ReplayIo, env?: Record<string, unknown>): Promise<number> {
  let request: ReplayRequest;
  try {
    request = replayRequestOf(argv);
  } catch (error) {
    io.err.write(`${(error as Error).message}\n${REPLAY_USAGE}\n`);
    return 2;
  }
  try {
    const context = await NestFactory.createApplicationContext(DecisionReplayModule.forRoot(env, io.log), {
      bufferLogs: true,
      abortOnError: false,
    });
    context.useLogger(new StartUpQuietLogger(context.get(Logger)));
    try {
      const report = await context
        .get(DecisionReplay)
        .replay(request, (replayed) => io.out.write(`${eventLine(replayed, request.dryRun)}\n`));
      io.out.write(`${summary(request, report)}\n`);
      return 0;
    } finally {
      await context.close();
    }
  } catch (error) {
    io.err.write(`replay failed: ${(error as Error).message}\n`);
    return 1;
  }
}

function eventLine({ event, publishedAt, held }: ReplayedEvent, dryRun: boolean): string {
  const what = held ? 'still held by Bull: left as it is' : dryRun ? 'would be published again' : 'published again';
  return `${event.approvalId}  tenant ${event.tenantId}  ${event.outcome}  published ${publishedAt.toISOString()}  ${what}`;
}

function summary({ since, tenantId, dryRun }: ReplayRequest, { found, added, held }: ReplayReport): string {
  const events = `${found} decision event${found === 1 ? '' : 's'} marked published since ${since.toISOString()}`;
  const scope = tenantId === null ? 'all tenants' : `tenant ${tenantId}`;
  const heldPart = `${held} still held by Bull (left as they are)`;
  return dryRun
    ? `Dry run: would replay ${events} (${scope}): ${found - held} to publish again, ${heldPart}. Nothing was published.`
    : `Replayed ${events} (${scope}): ${added} published again to approval-decisions, ${heldPart}.`;
}
