import { AxiosInstance, AxiosResponse, isAxiosError } from 'axios';
import { maxHeaderSize } from 'node:http';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOutboundRefusal } from '@app/outbound';
import {
  AccessTokenSource,
  ChildEntry,
  DocumentSystemLogin,
  DocumentSystemSession,
  FileContent,
  Page,
  Workgroup,
} from './document-system.adapter';
import { collectAnswer } from './answer-bytes';
import { AnswerUnreadable } from './answer-parser';
import { AnswerShape, MAX_ANSWER_VALUES, MAX_CURSOR_LENGTH, ReadAnswer } from './answer-shapes';
import { apiUrl, pathSegment } from './api-url';
import { CallBudget, CallBudgetSpent } from './call-budget';
import { ShareWaitAborted } from './call-shares';
import { DocumentSystemException } from './document-system.exception';
import { DownloadDeadline } from './call-limits';
import { isRetryableNetworkError, isRetryableStatus, retryDelayMs } from './retry-policy';
import { drainJson, errorOf, header, isSuccess, SessionKit } from './session-support';

interface CallOptions {
  path: string;
  params?: Record<string, string | undefined>;
  stream?: boolean;
  /** A download's listed size, which sets its deadline. */
  listedSize?: number;
  /** What a 404 means, told its answer's `error` (the document system's own 404 says `not_found`). */
  notFound?: (error: string | undefined) => Error;
}

/** Why an answer that is not a listing fails the call, in the words of its 502. */
const ANSWER_PROBLEMS: Record<'NotJson' | 'NotAListing' | 'CursorTooLong' | 'TooManyValues', string> = {
  NotJson: 'the answer is not JSON',
  NotAListing: 'the answer is not a listing',
  CursorTooLong: `the answer's nextCursor is longer than ${MAX_CURSOR_LENGTH} characters`,
  TooManyValues: `the answer holds more than ${MAX_ANSWER_VALUES.toLocaleString('en')} JSON values`,
};

/** The `error` of the document system's answer for an item it does not have. */
const NOT_FOUND = 'not_found';
/**
 * Only the document system's own "not found" says a folder or file is gone; another 404 (a wrong instance URL, a
 * proxy's page) says nothing of it, and fails the call as any other answer would: a folder taken for gone on such
 * an answer would have its documents deleted.
 */
const strayNotFound = () => DocumentSystemException.unavailable('HTTP 404');

/**
 * Failures that mean "this is not a document system" when opening a session: no such name. A host that
 * refuses is unavailable, as one that stays silent: telling them apart would tell which ports are open.
 */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ERR_SOCKET_CONNECTION_TIMEOUT']);

export class HttpDocumentSystemSession implements DocumentSystemSession {
  private accessToken?: string;

  /**
   * `tenantId` names whose share of calls (CallShares) and whose lane at the answer parser the session's work is
   * in, whatever its login; `key` names the login (the session cache's key); `budget` bounds every call made.
   */
  constructor(
    private readonly http: AxiosInstance,
    private readonly tenantId: string,
    private readonly login: DocumentSystemLogin,
    private readonly tokens: AccessTokenSource,
    private readonly key: string,
    private readonly kit: SessionKit,
    private readonly budget?: CallBudget,
  ) {}

  async listWorkgroups(cursor?: string): Promise<Page<Workgroup>> {
    const res = await this.call<Uint8Array[]>({ path: '/api/v1/workgroups', params: { cursor } });
    return this.listing<Workgroup>(res.data, 'workgroups');
  }

  async listChildren(folderId: string, cursor?: string): Promise<Page<ChildEntry>> {
    const res = await this.call<Uint8Array[]>({
      path: `/api/v1/folders/${pathSegment(folderId, () => DocumentSystemException.folderNotFound(folderId))}/children`,
      params: { cursor },
      notFound: (error) => (error === NOT_FOUND ? DocumentSystemException.folderNotFound(folderId) : strayNotFound()),
    });
    return this.listing<ChildEntry>(res.data, 'children');
  }

  async fileContent(fileId: string, listedSize?: number): Promise<FileContent> {
    const res = await this.call<Readable>({
      path: `/api/v1/files/${pathSegment(fileId, () => DocumentSystemException.fileUnaddressable(fileId))}/content`,
      stream: true,
      listedSize,
      notFound: (error) => (error === NOT_FOUND ? DocumentSystemException.fileNotFound(fileId) : strayNotFound()),
    });
    const length = Number(res.headers['content-length']);
    return {
      stream: res.data,
      contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
      contentLength: Number.isFinite(length) ? length : null,
    };
  }

  /** Opens a session unless a live one is cached for this login (or `fresh`); either way the access token must be good (or refreshable). */
  async ensureSessionToken(fresh = false): Promise<string> {
    await this.token();
    return (fresh ? undefined : this.kit.sessions.get(this.key)) ?? (await this.openSession());
  }

  private async openSession(): Promise<string> {
    let refreshedAt = -1;
    for (let attempt = 1; ; attempt++) {
      // Outside the try: a refused refresh is REAUTH_REQUIRED, not an unreachable document system.
      const bearer = await this.token();
      const url = apiUrl(this.login.instanceUrl, '/api/v1/session');
      const signal = this.signal();
      let res: AxiosResponse<Readable>;
      let body: Record<string, unknown> | undefined;
      try {
        this.budget?.take();
        res = await this.exchange(signal, () =>
          this.http.post(
            url.toString(),
            { username: this.login.username, password: this.login.password },
            { headers: { Authorization: `Bearer ${bearer}` }, responseType: 'stream', signal },
          ),
        );
        body = (await this.answer(res, 'session', signal)) as typeof body;
      } catch (error) {
        const code = isAxiosError(error) ? error.code : undefined;
        if (code && UNREACHABLE.has(code) && !isOutboundRefusal(error))
          throw DocumentSystemException.credentialsInvalid();
        await this.backoffOrThrow(attempt, error);
        continue;
      }
      if (res.status === 200 && typeof body?.sessionToken === 'string') {
        this.kit.sessions.set(this.tenantId, this.key, body.sessionToken, Number(body.expiresIn) || 300);
        return body.sessionToken;
      }
      const reason = errorOf(body);
      if (res.status === 401 && reason === 'invalid_token') {
        if (!this.mayRecover(attempt, refreshedAt)) throw DocumentSystemException.reauthRequired();
        refreshedAt = attempt;
        this.accessToken = await this.renewedToken();
        continue;
      }
      if (isRetryableStatus(res.status) && attempt < this.kit.policy.maxAttempts) {
        await this.pause(retryDelayMs(this.kit.policy, attempt, header(res, 'retry-after')));
        continue;
      }
      if (isRetryableStatus(res.status)) throw DocumentSystemException.unavailable(`HTTP ${res.status}`);
      // 401 invalid_credentials, or an answer that is not the document system's (wrong instance URL).
      throw DocumentSystemException.credentialsInvalid();
    }
  }

  /**
   * One API call with the contract's recovery: 401 invalid_token → refresh the access token and retry;
   * invalid_session → open a new session and retry; 429/5xx/dropped connections → capped exponential
   * backoff with jitter, honouring Retry-After. A token or session can expire again during backoffs, so
   * each may be renewed more than once; a refreshed token refused on its very next use means the
   * authorization is gone (re-authenticate). An answer that is not a download comes back as its bytes.
   */
  private async call<T>(options: CallOptions): Promise<AxiosResponse<T>> {
    let refreshedAt = -1;
    let reopenedAt = -1;
    for (let attempt = 1; ; attempt++) {
      const sessionToken = await this.ensureSessionToken();
      const bearer = await this.token();
      const url = apiUrl(this.login.instanceUrl, options.path, options.params);
      const download = options.stream ? new DownloadDeadline(this.kit.limits, options.listedSize) : null;
      const signal = download?.controller.signal ?? this.signal();
      let res: AxiosResponse;
      try {
        this.budget?.take();
        res = await this.exchange(signal, () =>
          this.http.get(url.toString(), {
            responseType: 'stream',
            signal,
            headers: { Authorization: `Bearer ${bearer}`, 'X-Session-Token': sessionToken },
          }),
        );
        if (!download && isSuccess(res.status))
          res = { ...res, data: await collectAnswer(res.data, this.kit.limits.maxAnswerBytes, signal) };
      } catch (error) {
        download?.stop();
        await this.backoffOrThrow(attempt, error);
        continue;
      }
      if (isSuccess(res.status)) {
        if (!download) return res as AxiosResponse<T>;
        return { ...res, data: download.pace(res.data as Readable) } as AxiosResponse<T>;
      }
      const body = await drainJson(res.data as Readable, signal);
      download?.stop();
      const reason = errorOf(body);
      if (res.status === 401 && reason === 'invalid_session') {
        if (!this.mayRecover(attempt, reopenedAt))
          throw DocumentSystemException.unavailable('the session kept expiring');
        reopenedAt = attempt;
        this.kit.sessions.forget(this.key, sessionToken);
        continue;
      }
      if (res.status === 401) {
        if (!this.mayRecover(attempt, refreshedAt)) throw DocumentSystemException.reauthRequired();
        refreshedAt = attempt;
        this.accessToken = await this.renewedToken();
        continue;
      }
      if (res.status === 404 && options.notFound) throw options.notFound(reason);
      if (isRetryableStatus(res.status) && attempt < this.kit.policy.maxAttempts) {
        await this.pause(retryDelayMs(this.kit.policy, attempt, header(res, 'retry-after')));
        continue;
      }
      throw DocumentSystemException.unavailable(`HTTP ${res.status}`);
    }
  }

  /** One HTTP exchange within the tenant's share of calls (CallShares.exchange), whichever its login. */
  private exchange(signal: AbortSignal, send: () => Promise<AxiosResponse<Readable>>) {
    return this.kit.shares.exchange(this.tenantId, signal, send);
  }

  /** A listing page, parsed off the event loop; a page over LISTING_MAX_ITEMS fails the call. */
  private async listing<T>(chunks: Uint8Array[], shape: 'workgroups' | 'children'): Promise<Page<T>> {
    const { maxListingItems } = this.kit.limits;
    const answer = await this.read(chunks, shape, maxListingItems);
    if (answer.ok) return answer.value as Page<T>;
    if (answer.problem === 'TooManyItems')
      throw DocumentSystemException.listingTooLong(answer.items ?? 0, maxListingItems);
    throw DocumentSystemException.unavailable(ANSWER_PROBLEMS[answer.problem]);
  }

  /** A session answer's fields, or an error answer's `error`; one that is not JSON tells nothing. */
  private async answer(res: AxiosResponse<Readable>, shape: 'session', signal: AbortSignal): Promise<unknown> {
    if (!isSuccess(res.status)) return drainJson(res.data, signal);
    const chunks = await collectAnswer(res.data, this.kit.limits.maxAnswerBytes, signal);
    const answer = await this.read(chunks, shape, 0);
    return answer.ok ? answer.value : undefined;
  }

  /** An answer read by the parser; one its process could not read (time, memory) is the document system's failure. */
  private async read(chunks: Uint8Array[], shape: AnswerShape, maxItems: number): Promise<ReadAnswer> {
    try {
      return await this.within(this.kit.parser.read(chunks, shape, maxItems, this.tenantId, this.budget?.signal));
    } catch (error) {
      if (error instanceof AnswerUnreadable) throw DocumentSystemException.unavailable(error.message);
      throw error;
    }
  }

  private within<T>(work: Promise<T>): Promise<T> {
    return this.budget ? this.budget.within(work) : work;
  }

  /** A call's deadline, and the budget's when the call is bounded by one. */
  private signal(): AbortSignal {
    const own = AbortSignal.timeout(this.kit.limits.deadlineMs);
    return this.budget ? AbortSignal.any([own, this.budget.signal]) : own;
  }

  private async pause(ms: number): Promise<void> {
    if (!this.budget) return sleep(ms);
    // The wait ends with the budget (its timer too), as CallBudgetSpent.
    await this.budget.within(sleep(ms, undefined, { signal: this.budget.signal }).catch(() => undefined));
  }

  /** Renew again unless the last renewal was for the attempt just before (refused at once) or attempts ran out. */
  private mayRecover(attempt: number, lastRenewedAt: number): boolean {
    return lastRenewedAt !== attempt - 1 && attempt <= 2 * this.kit.policy.maxAttempts;
  }

  // A token that is slow to come counts against the request's bound too; it is stored all the same when it comes.
  private async token(): Promise<string> {
    this.accessToken ??= await this.within(this.tokens.current());
    return this.accessToken;
  }

  private renewedToken(): Promise<string> {
    return this.within(this.tokens.refreshed());
  }

  /** Retries what may pass on another try; the rest ends the call with a message naming no socket code or address. */
  private async backoffOrThrow(attempt: number, error: unknown): Promise<void> {
    if (error instanceof CallBudgetSpent || error instanceof DocumentSystemException) throw error;
    if (this.budget?.signal.aborted) throw new CallBudgetSpent(this.budget);
    // The policy's refusal names its rule (never an address): the admin needs it to mend the instance URL.
    if (isOutboundRefusal(error)) throw DocumentSystemException.unavailable((error as Error).message);
    const code = isAxiosError(error) ? error.code : undefined;
    const message = (error as Error)?.message;
    if (code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(message ?? ''))
      throw DocumentSystemException.answerTooLarge(this.kit.limits.maxAnswerBytes);
    if (code === 'HPE_HEADER_OVERFLOW') throw DocumentSystemException.headersTooLarge(maxHeaderSize);
    if (code === 'ERR_CANCELED' || error instanceof ShareWaitAborted)
      throw DocumentSystemException.unavailable(`no answer within ${this.kit.limits.deadlineMs / 1000} s`);
    if (!isRetryableNetworkError(code, message) || attempt >= this.kit.policy.maxAttempts) {
      this.kit.logger.warn({ code, attempt }, 'document system unreachable');
      throw DocumentSystemException.unavailable(
        code && TIMED_OUT.has(code) ? 'the connection timed out' : 'the connection failed',
      );
    }
    await this.pause(retryDelayMs(this.kit.policy, attempt));
  }
}
