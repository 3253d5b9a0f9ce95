import { isAxiosError } from 'axios';
import { maxHeaderSize } from 'node:http';
import { isOutboundRefusal } from '@app/outbound';
import { MAX_ANSWER_VALUES, MAX_CURSOR_LENGTH } from './answer-shapes';
import { CallBudget, CallBudgetSpent } from './call-budget';
import { ShareWaitAborted } from './call-shares';
import { DocumentSystemException } from './document-system.exception';
import { isRetryableNetworkError } from './retry-policy';
import type { SessionKit } from './session-support';

/** Why an answer that is not a listing fails the call, in the words of its 502. */
export const ANSWER_PROBLEMS: Record<'NotJson' | 'NotAListing' | 'CursorTooLong' | 'TooManyValues', string> = {
  NotJson: 'the answer is not JSON',
  NotAListing: 'the answer is not a listing',
  CursorTooLong: `the answer's nextCursor is longer than ${MAX_CURSOR_LENGTH} characters`,
  TooManyValues: `the answer holds more than ${MAX_ANSWER_VALUES.toLocaleString('en')} JSON values`,
};

/** The `error` of the document system's answer for an item it does not have. */
export const NOT_FOUND = 'not_found';
/**
 * Only the document system's own "not found" says a folder or file is gone; another 404 (a wrong instance URL, a
 * proxy's page) says nothing of it, and fails the call as any other answer would: a folder taken for gone on such
 * an answer would have its documents deleted.
 */
export const strayNotFound = () => DocumentSystemException.unavailable('HTTP 404');

/**
 * Failures that mean "this is not a document system" when opening a session: no such name. A host that
 * refuses is unavailable, as one that stays silent: telling them apart would tell which ports are open.
 */
export const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);
export const TIMED_OUT = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ERR_SOCKET_CONNECTION_TIMEOUT']);
/** A token as a header carries it whole: visible ASCII, spaces only within. */
export const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * What a failed exchange ends the call with, or null when it may pass on another try (not the last attempt). A
 * message names no socket code or address.
 */
export function callFailure(error: unknown, attempt: number, kit: SessionKit, budget?: CallBudget): Error | null {
  if (error instanceof CallBudgetSpent || error instanceof DocumentSystemException) return error;
  if (budget?.signal.aborted) return new CallBudgetSpent(budget);
  // The policy's refusal names its rule (never an address): the admin needs it to mend the instance URL.
  if (isOutboundRefusal(error)) return DocumentSystemException.unavailable((error as Error).message);
  const code = isAxiosError(error) ? error.code : undefined;
  const message = (error as Error)?.message;
  if (code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(message ?? ''))
    return DocumentSystemException.answerTooLarge(kit.limits.maxAnswerBytes);
  if (code === 'HPE_HEADER_OVERFLOW') return DocumentSystemException.headersTooLarge(maxHeaderSize);
  if (code === 'ERR_CANCELED' || error instanceof ShareWaitAborted)
    return DocumentSystemException.unavailable(`no answer within ${kit.limits.deadlineMs / 1000} s`);
  if (isRetryableNetworkError(code, message) && attempt < kit.policy.maxAttempts) return null;
  kit.logger.warn({ code, attempt }, 'document system unreachable');
  return DocumentSystemException.unavailable(
    code && TIMED_OUT.has(code) ? 'the connection timed out' : 'the connection failed',
  );
}
