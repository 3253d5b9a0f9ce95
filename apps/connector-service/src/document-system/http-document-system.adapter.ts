import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import axios, { AxiosInstance } from 'axios';
import { sha256Hex } from '@app/crypto';
import { GuardedAgents, guardedAgents, OutboundOptions, outboundAxiosConfig, OutboundUrlPolicy } from '@app/outbound';
import {
  AccessTokenSource,
  DocumentSystemAdapter,
  DocumentSystemLogin,
  DocumentSystemSession,
} from './document-system.adapter';
import { CallLimits, DEFAULT_CALL_LIMITS } from './call-limits';
import { DocumentSystemException } from './document-system.exception';
import { HttpDocumentSystemSession, SessionTokenCache } from './http-document-system.session';
import { DEFAULT_RETRY_POLICY, RetryPolicy } from './retry-policy';

export const DOCUMENT_SYSTEM_TIMEOUT_MS = 30_000;

/** The reference adapter: the document system's HTTP API as CONTRACT.md describes it. */
@Injectable()
export class HttpDocumentSystemAdapter extends DocumentSystemAdapter implements OnModuleDestroy {
  private readonly logger = new Logger(HttpDocumentSystemAdapter.name);
  private readonly agents: GuardedAgents;
  private readonly http: AxiosInstance;
  private readonly sessions = new SessionTokenCache(1000);

  constructor(
    outbound: OutboundOptions,
    private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    private readonly limits: CallLimits = DEFAULT_CALL_LIMITS,
  ) {
    super();
    this.agents = guardedAgents(new OutboundUrlPolicy(outbound), { maxSockets: 64 });
    this.http = axios.create({
      ...outboundAxiosConfig(this.agents),
      timeout: DOCUMENT_SYSTEM_TIMEOUT_MS,
      validateStatus: () => true,
    });
  }

  async openSession(
    login: DocumentSystemLogin,
    tokens: AccessTokenSource,
    options: { fresh?: boolean } = {},
  ): Promise<DocumentSystemSession> {
    if (!/^https?:\/\//.test(login.instanceUrl)) throw DocumentSystemException.credentialsInvalid();
    const key = sha256Hex(`${login.instanceUrl}\n${login.username}\n${login.password}`);
    const session = new HttpDocumentSystemSession(
      this.http,
      login,
      tokens,
      this.sessions,
      key,
      this.policy,
      this.limits,
      this.logger,
    );
    await session.ensureSessionToken(options.fresh === true);
    return session;
  }

  onModuleDestroy(): void {
    this.agents.destroy();
  }
}
