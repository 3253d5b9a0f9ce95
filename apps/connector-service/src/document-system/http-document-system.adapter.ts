import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import axios, { AxiosInstance } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { sha256Hex } from '@app/crypto';
import { AccessTokenSource, DocumentSystemAdapter, DocumentSystemLogin, DocumentSystemSession } from './document-system.adapter';
import { DocumentSystemException } from './document-system.exception';
import { HttpDocumentSystemSession, SessionTokenCache } from './http-document-system.session';
import { DEFAULT_RETRY_POLICY, RetryPolicy } from './retry-policy';

export const DOCUMENT_SYSTEM_TIMEOUT_MS = 30_000;

/** The reference adapter: the document system's HTTP API as CONTRACT.md describes it. */
@Injectable()
export class HttpDocumentSystemAdapter extends DocumentSystemAdapter implements OnModuleDestroy {
  private readonly logger = new Logger(HttpDocumentSystemAdapter.name);
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  private readonly http: AxiosInstance;
  private readonly sessions = new SessionTokenCache(1000);

  constructor(private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY) {
    super();
    this.http = axios.create({
      timeout: DOCUMENT_SYSTEM_TIMEOUT_MS,
      httpAgent: this.httpAgent,
      httpsAgent: this.httpsAgent,
      maxRedirects: 0,
      validateStatus: () => true,
    });
  }

  async openSession(login: DocumentSystemLogin, tokens: AccessTokenSource): Promise<DocumentSystemSession> {
    if (!/^https?:\/\//.test(login.instanceUrl)) throw DocumentSystemException.credentialsInvalid();
    const key = sha256Hex(`${login.instanceUrl}\n${login.username}\n${login.password}`);
    const session = new HttpDocumentSystemSession(this.http, login, tokens, this.sessions, key, this.policy, this.logger);
    await session.ensureSessionToken();
    return session;
  }

  onModuleDestroy(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
