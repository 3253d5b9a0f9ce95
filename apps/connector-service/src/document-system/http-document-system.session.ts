import { Logger } from '@nestjs/common';
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
import { apiUrl, pathSegment } from './api-url';
import { DocumentSystemException } from './document-system.exception';
import { CallLimits, DownloadDeadline } from './call-limits';
import { isRetryableNetworkError, isRetryableStatus, retryDelayMs, RetryPolicy } from './retry-policy';

/** Session tokens by login, shared by every session object of a process so syncs reuse one session. */
export class SessionTokenCache {
  private readonly entries = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > Date.now()) return entry.token;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, token: string, expiresInSeconds: number): void {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    // Renew a little early so a session does not expire between the check and the call.
    this.entries.set(key, { token, expiresAt: Date.now() + Math.max(0, expiresInSeconds - 30) * 1000 });
  }

  forget(key: string, token: string): void {
    if (this.entries.get(key)?.token === token) this.entries.delete(key);
  }
}

interface CallOptions {
  path: string;
  params?: Record<string, string | undefined>;
  stream?: boolean;
  notFound?: () => Error;
}

/**
 * Failures that mean "this is not a document system" when opening a session: no such name. A host that
 * refuses is unavailable, as one that stays silent: telling them apart would tell which ports are open.
 */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);
const TIMED_OUT = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ERR_SOCKET_CONNECTION_TIMEOUT']);
/** Of an error answer, we read this much to learn its OAuth-style `error`. */
const ERROR_BODY_BYTES = 64 * 1024;

export class HttpDocumentSystemSession implements DocumentSystemSession {
  private accessToken?: string;

  constructor(
    private readonly http: AxiosInstance,
    private readonly login: DocumentSystemLogin,
    private readonly tokens: AccessTokenSource,
    private readonly sessions: SessionTokenCache,
    private readonly key: string,
    private readonly policy: RetryPolicy,
    private readonly limits: CallLimits,
    private readonly logger: Logger,
  ) {}

  async listWorkgroups(cursor?: string): Promise<Page<Workgroup>> {
    const res = await this.call<Page<Workgroup>>({ path: '/api/v1/workgroups', params: { cursor } });
    return { items: res.data.items ?? [], nextCursor: res.data.nextCursor ?? null };
  }

  async listChildren(folderId: string, cursor?: string): Promise<Page<ChildEntry>> {
    const res = await this.call<Page<ChildEntry>>({
      path: `/api/v1/folders/${pathSegment(folderId, () => DocumentSystemException.folderNotFound(folderId))}/children`,
      params: { cursor },
      notFound: () => DocumentSystemException.folderNotFound(folderId),
    });
    return { items: res.data.items ?? [], nextCursor: res.data.nextCursor ?? null };
  }

  async fileContent(fileId: string): Promise<FileContent> {
    const res = await this.call<Readable>({
      path: `/api/v1/files/${pathSegment(fileId, () => DocumentSystemException.fileNotFound(fileId))}/content`,
      stream: true,
      notFound: () => DocumentSystemException.fileNotFound(fileId),
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
    return (fresh ? undefined : this.sessions.get(this.key)) ?? (await this.openSession());
  }

  private async openSession(): Promise<string> {
    let refreshedAt = -1;
    for (let attempt = 1; ; attempt++) {
      // Outside the try: a refused refresh is REAUTH_REQUIRED, not an unreachable document system.
      const bearer = await this.token();
      const url = apiUrl(this.login.instanceUrl, '/api/v1/session');
      let res: AxiosResponse;
      try {
        res = await this.http.post(
          url.toString(),
          { username: this.login.username, password: this.login.password },
          {
            headers: { Authorization: `Bearer ${bearer}` },
            maxContentLength: this.limits.maxAnswerBytes,
            signal: AbortSignal.timeout(this.limits.deadlineMs),
          },
        );
      } catch (error) {
        const code = isAxiosError(error) ? error.code : undefined;
        if (code && UNREACHABLE.has(code) && !isOutboundRefusal(error))
          throw DocumentSystemException.credentialsInvalid();
        await this.backoffOrThrow(attempt, error);
        continue;
      }
      if (res.status === 200 && typeof res.data?.sessionToken === 'string') {
        this.sessions.set(this.key, res.data.sessionToken, Number(res.data.expiresIn) || 300);
        return res.data.sessionToken;
      }
      const reason = errorOf(res.data);
      if (res.status === 401 && reason === 'invalid_token') {
        if (!this.mayRecover(attempt, refreshedAt)) throw DocumentSystemException.reauthRequired();
        refreshedAt = attempt;
        this.accessToken = await this.tokens.refreshed();
        continue;
      }
      if (isRetryableStatus(res.status) && attempt < this.policy.maxAttempts) {
        await sleep(retryDelayMs(this.policy, attempt, header(res, 'retry-after')));
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
   * authorization is gone (re-authenticate).
   */
  private async call<T>(options: CallOptions): Promise<AxiosResponse<T>> {
    let refreshedAt = -1;
    let reopenedAt = -1;
    for (let attempt = 1; ; attempt++) {
      const sessionToken = await this.ensureSessionToken();
      const bearer = await this.token();
      const url = apiUrl(this.login.instanceUrl, options.path, options.params);
      const download = options.stream ? new DownloadDeadline(this.limits) : null;
      let res: AxiosResponse;
      try {
        res = await this.http.get(url.toString(), {
          responseType: options.stream ? 'stream' : 'json',
          maxContentLength: this.limits.maxAnswerBytes,
          signal: download?.controller.signal ?? AbortSignal.timeout(this.limits.deadlineMs),
          headers: { Authorization: `Bearer ${bearer}`, 'X-Session-Token': sessionToken },
        });
      } catch (error) {
        download?.stop();
        await this.backoffOrThrow(attempt, error);
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        if (!download) return res as AxiosResponse<T>;
        const paced = download.pace(res.data as Readable, () =>
          DocumentSystemException.unavailable('the download fell behind its minimum rate'),
        );
        return { ...res, data: paced } as AxiosResponse<T>;
      }
      const body = options.stream ? await drainJson(res.data as Readable) : res.data;
      download?.stop();
      const reason = errorOf(body);
      if (res.status === 401 && reason === 'invalid_session') {
        if (!this.mayRecover(attempt, reopenedAt))
          throw DocumentSystemException.unavailable('the session kept expiring');
        reopenedAt = attempt;
        this.sessions.forget(this.key, sessionToken);
        continue;
      }
      if (res.status === 401) {
        if (!this.mayRecover(attempt, refreshedAt)) throw DocumentSystemException.reauthRequired();
        refreshedAt = attempt;
        this.accessToken = await this.tokens.refreshed();
        continue;
      }
      if (res.status === 404 && options.notFound) throw options.notFound();
      if (isRetryableStatus(res.status) && attempt < this.policy.maxAttempts) {
        await sleep(retryDelayMs(this.policy, attempt, header(res, 'retry-after')));
        continue;
      }
      throw DocumentSystemException.unavailable(`HTTP ${res.status}`);
    }
  }

  /** Renew again unless the last renewal was for the attempt just before (refused at once) or attempts ran out. */
  private mayRecover(attempt: number, lastRenewedAt: number): boolean {
    return lastRenewedAt !== attempt - 1 && attempt <= 2 * this.policy.maxAttempts;
  }

  private async token(): Promise<string> {
    this.accessToken ??= await this.tokens.current();
    return this.accessToken;
  }

  /** Retries what may pass on another try; the rest ends the call with a message naming no socket code or address. */
  private async backoffOrThrow(attempt: number, error: unknown): Promise<void> {
    // The policy's refusal names its rule (never an address): the admin needs it to mend the instance URL.
    if (isOutboundRefusal(error)) throw DocumentSystemException.unavailable((error as Error).message);
    const code = isAxiosError(error) ? error.code : undefined;
    const message = (error as Error)?.message;
    if (code === 'ERR_BAD_RESPONSE' && /maxContentLength/.test(message ?? ''))
      throw DocumentSystemException.answerTooLarge(this.limits.maxAnswerBytes);
    if (code === 'ERR_CANCELED')
      throw DocumentSystemException.unavailable(`no answer within ${this.limits.deadlineMs / 1000} s`);
    if (!isRetryableNetworkError(code, message) || attempt >= this.policy.maxAttempts) {
      this.logger.warn({ code, attempt }, 'document system unreachable');
      throw DocumentSystemException.unavailable(
        code && TIMED_OUT.has(code) ? 'the connection timed out' : 'the connection failed',
      );
    }
    await sleep(retryDelayMs(this.policy, attempt));
  }
}

function errorOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'error' in body
    ? String((body as { error: unknown }).error)
    : undefined;
}

function header(res: AxiosResponse, name: string): string | undefined {
  const value = res.headers[name];
  return value === undefined ? undefined : String(value);
}

/** The `error` of an error answer to a download; a body that is large, slow, broken or not JSON tells nothing. */
async function drainJson(stream: Readable): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > ERROR_BODY_BYTES) return undefined;
      chunks.push(chunk as Buffer);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  } finally {
    stream.destroy();
  }
}
