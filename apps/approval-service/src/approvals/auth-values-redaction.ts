import { isDeepStrictEqual } from 'node:util';
import { WEBHOOK_AUTH_TYPES, WebhookAuthType } from '@app/contracts/views';

/** What replaces a webhook auth value in a request job once it is taken in (still a valid value, so a re-run validates). */
export const REDACTED_AUTH_VALUE = '[removed after intake]';

/** The fields of each type that hold what is sent; CustomHeader's header name is no value and a re-run needs it. */
const VALUE_FIELDS: Record<WebhookAuthType, readonly string[]> = {
  None: [],
  ApiKey: ['apiKey'],
  BearerToken: ['token'],
  BasicAuth: ['username', 'password'],
  CustomHeader: ['headerValue'],
};

type Authentication = { type?: WebhookAuthType; [field: string]: unknown };

/**
 * A request job's data once its request is taken in (valid data): the approval keeps the auth values encrypted,
 * the job only the contract's fields, each value a placeholder. The same object when that is what it holds.
 */
export function withoutAuthValues(data: unknown): unknown {
  return withAuthentication(data, placeholdersOf);
}

/** The fields of a request and of its webhook the contract names (CONTRACT.md, "Requesting an approval"). */
const REQUEST_FIELDS = ['tenantId', 'executionId', 'stepId', 'agentName', 'webhook', 'stepInput', 'previousResults'];
const WEBHOOK_FIELDS = ['url', 'authentication', 'timeoutSeconds', 'maxRetryAttempts', 'message'];

/**
 * A request job's data as it is left failed in Redis without being taken in: only the contract's fields (a secret
 * may stand under a misspelt one), a webhook URL without its user and password, and of its authentication, whatever
 * its shape, only its type when that is one the contract names. A webhook, or data, that is not an object (an
 * array, a string) may hold an auth value anywhere: nothing of it is kept. The same object when that is what it holds.
 */
export function withAuthTypeOnly(data: unknown): unknown {
  if (!isRecord(data)) return mayHoldText(data) ? {} : data;
  const kept = picked(data, REQUEST_FIELDS);
  if (isRecord(kept.webhook)) kept.webhook = withUrlWithoutPassword(picked(kept.webhook, WEBHOOK_FIELDS));
  else if (mayHoldText(kept.webhook)) delete kept.webhook;
  const refused = withAuthentication(kept, typeOf);
  return isDeepStrictEqual(refused, data) ? data : refused;
}

function picked(record: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([field]) => fields.includes(field)));
}

function withUrlWithoutPassword(webhook: Record<string, unknown>): Record<string, unknown> {
  if (typeof webhook.url !== 'string' || !URL.canParse(webhook.url)) return webhook;
  const url = new URL(webhook.url);
  if (!url.username && !url.password) return webhook;
  url.username = '';
  url.password = '';
  return { ...webhook, url: url.href };
}

function withAuthentication(data: unknown, kept: (authentication: unknown) => Authentication): unknown {
  if (!isRecord(data) || !isRecord(data.webhook) || !('authentication' in data.webhook)) return data;
  const authentication = kept(data.webhook.authentication);
  if (isDeepStrictEqual(authentication, data.webhook.authentication)) return data;
  return { ...data, webhook: { ...data.webhook, authentication } };
}

function typeOf(authentication: unknown): Authentication {
  const type = isRecord(authentication) ? authentication.type : undefined;
  return WEBHOOK_AUTH_TYPES.includes(type as WebhookAuthType) ? { type: type as WebhookAuthType } : {};
}

function placeholdersOf(authentication: unknown): Authentication {
  const { type } = typeOf(authentication);
  if (!type) return {};
  const headerName = (authentication as Authentication).headerName;
  return {
    type,
    ...(type === 'CustomHeader' && typeof headerName === 'string' ? { headerName } : {}),
    ...Object.fromEntries(VALUE_FIELDS[type].map((field) => [field, REDACTED_AUTH_VALUE])),
  };
}

/** Strings, arrays and objects; not null, numbers or booleans. */
function mayHoldText(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'object' && value !== null);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
