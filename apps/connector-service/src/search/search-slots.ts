import { TenantTurns } from '@app/database';
import { DomainException, RetryLaterException } from '@app/errors';

/** As many as the search statement's own connections: more at once would only queue in the pool. */
export const SEARCH_SLOTS = 8;
/** A tenant's searches waiting in one process past this many are refused (429) rather than queued. */
export const MAX_WAITING_SEARCHES_PER_TENANT = 64;
export const TOO_MANY_SEARCHES = 'TOO_MANY_SEARCHES';
export const CLIENT_CLOSED_REQUEST = 'CLIENT_CLOSED_REQUEST';

/**
 * How many searches this process runs at once, and whose goes next (TenantTurns): one tenant's burst of
 * searches queues behind itself, never in front of another tenant's search. A search whose caller leaves
 * while it waits (`abandoned`) gives up its place and never runs.
 * Provided through a factory: its limits are plain numbers, not injected.
 */
export class SearchSlots extends TenantTurns {
  constructor(slots = SEARCH_SLOTS, maxWaitingPerTenant = MAX_WAITING_SEARCHES_PER_TENANT) {
    super(slots, {
      left: closedRequest,
      maxWaitingPerTenant,
      tooMany: () => new RetryLaterException(429, TOO_MANY_SEARCHES, 'Too many searches at once; try again shortly', 1),
    });
  }
}

/** Nobody reads this answer: the caller has gone (the status nginx logs for it). */
function closedRequest(): DomainException {
  return new DomainException(499, CLIENT_CLOSED_REQUEST, 'The caller left before its search started');
}
