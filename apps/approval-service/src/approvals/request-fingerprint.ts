import type { ApprovalRequestDto } from '@app/contracts/payloads';

/**
 * What a repeat of (executionId, stepId) must match, as canonical JSON (keys sorted, defaults
 * applied): the webhook with its auth values, the agent name and the message. It holds secrets:
 * only its keyed fingerprint is stored.
 */
export function requestIdentity(
  input: ApprovalRequestDto,
  defaults: { timeoutSeconds: number; maxRetryAttempts: number },
): string {
  const { url, authentication, timeoutSeconds, maxRetryAttempts, message, remindAfterSeconds } = input.webhook;
  return canonicalJson({
    agentName: input.agentName,
    webhook: {
      url,
      authentication: { ...authentication },
      timeoutSeconds: timeoutSeconds ?? defaults.timeoutSeconds,
      maxRetryAttempts: maxRetryAttempts ?? defaults.maxRetryAttempts,
      message: message ?? '',
      // Only when asked for, so the fingerprints of requests from before reminders stay as they were.
      remindAfterSeconds,
    },
  });
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
