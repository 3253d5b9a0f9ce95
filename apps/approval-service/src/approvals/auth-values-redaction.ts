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

/**
 * A request job's data as it is left failed in Redis without being taken in: of its authentication, whatever
 * its shape, only its type when that is one the contract names. The same object when that is what it holds.
 */
export function withAuthTypeOnly(data: unknown): unknown {
  return withAuthentication(data, typeOf);
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
