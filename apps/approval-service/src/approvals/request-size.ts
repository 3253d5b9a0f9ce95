import type { Job } from 'bull';
import { MAX_BODY_BYTES } from '@app/http';
import { storedDataBytes } from '@app/queue';

/** A queued request may be as large as a REST body (the contract's 1 MiB), measured on its data as stored in Redis. */
export const MAX_REQUEST_BYTES = MAX_BODY_BYTES;
const MIB = 1024 * 1024;
/** The longest valid id: a longer one is refused anyway, and its echo is cut here. */
const ECHOED_ID_MAX = 200;
const ECHOED_IDS = ['tenantId', 'executionId', 'stepId'] as const;

/** Why a request job is too large to take in, or null. */
export async function oversizeReason(job: Job): Promise<string | null> {
  const bytes = await storedDataBytes(job);
  return bytes > MAX_REQUEST_BYTES ? `request is larger than ${MAX_REQUEST_BYTES / MIB} MiB (${bytes} bytes)` : null;
}

/**
 * What a refused oversized job keeps in Redis, and its decision event echoes: the ids, cut to the longest valid
 * length. No payload, no webhook, so no auth value.
 */
export function oversizedRemains(data: unknown): Record<string, string> {
  const fields = (data ?? {}) as Record<string, unknown>;
  const kept: Record<string, string> = {};
  for (const id of ECHOED_IDS) {
    const value = fields[id];
    if (typeof value === 'string') kept[id] = value.slice(0, ECHOED_ID_MAX);
  }
  return kept;
}
