import { AxiosInstance, AxiosResponse, isAxiosError } from 'axios';
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
import { apiUrl, pathSegment } from './api-url';
import { SessionAnswers } from './session-answers';
import { CallBudget } from './call-budget';
import { callFailure, HEADER_VALUE, NOT_FOUND, strayNotFound, UNREACHABLE } from './call-failures';
import { DocumentSystemException } from './document-system.exception';
import { DownloadDeadline } from './call-limits';
import { isRetryableStatus, retryDelayMs } from './retry-policy';
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

export class HttpDocumentSystemSession implements DocumentSystemSession {
  private accessToken?: string;
  private readonly answers: SessionAnswers;

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
  ) {
    this.answers = new SessionAnswers(kit, tenantId, budget);
  }

  async listWorkgroups(cursor?: string): Promise<Page<Workgroup>> {
    const res = await this.call<Uint8Array[]>({ path: '/api/v1/workgroups', params: { cursor } });
    return this.answers.listing<Workgroup>(res.data, 'workgroups');
  }

  async listChildren(folderId: string, cursor?: string): Promise<Page<ChildEntry>> {
    const res = await this.call<Uint8Array[]>({
      path: `/api/v1/folders/${pathSegment(folderId, () => DocumentSystemException.folderNotFound(folderId))}/children`,
      params: { cursor },
      notFound: (error) => (error === NOT_FOUND ? DocumentSystemException.folderNotFound(folderId) : strayNotFound()),
    });
    return this.answers.listing<ChildEntry>(res.data, 'children');
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
        body = (await this.answers.session(res, signal)) as typeof body;
      } catch (error) {
        const code = isAxiosError(error) ? error.code : undefined;
        if (code && UNREACHABLE.has(code) && !isOutboundRefusal(error))
          throw DocumentSystemException.credentialsInvalid();
        await this.backoffOrThrow(attempt, error);
        continue;
      }
      if (res.status === 200 && typeof body?.sessionToken === 'string') {
        // Sent back as X-Session-Token on every call: one no header can carry would fail each as "the connection failed".
        if (!HEADER_VALUE.test(body.sessionToken))
          throw DocumentSystemException.unavailable('the session answer holds a sessionToken no header can carry');
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

  /** Retries what may pass on another try (callFailure); the rest ends the call. */
  private async backoffOrThrow(attempt: number, error: unknown): Promise<void> {
    const failure = callFailure(error, attempt, this.kit, this.budget);
    if (failure) throw failure;
    await this.pause(retryDelayMs(this.kit.policy, attempt));
  }
}
