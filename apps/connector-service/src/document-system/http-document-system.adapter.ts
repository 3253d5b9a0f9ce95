import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import axios, { AxiosInstance } from 'axios';
import { sha256Hex } from '@app/crypto';
import { GuardedAgents, guardedAgents, OutboundOptions, outboundAxiosConfig, OutboundUrlPolicy } from '@app/outbound';
import {
  AccessTokenSource,
  DocumentSystemAdapter,
  DocumentSystemLogin,
  DocumentSystemSession,
  OpenSessionOptions,
} from './document-system.adapter';
import { AnswerParser } from './answer-parser';
import { CallLimits, DEFAULT_CALL_LIMITS } from './call-limits';
import { CallShares, TENANTS_AT_FULL_SHARE } from './call-shares';
import { DocumentSystemException } from './document-system.exception';
import { HttpDocumentSystemSession } from './http-document-system.session';
import { DEFAULT_RETRY_POLICY, RetryPolicy } from './retry-policy';
import { SessionKit } from './session-support';
import { SessionTokenCache } from './session-token-cache';

export const DOCUMENT_SYSTEM_TIMEOUT_MS = 30_000;
/** Session tokens the process keeps, over all tenants (SessionTokenCache). */
export const SESSIONS_HELD = 1000;

/** The reference adapter: the document system's HTTP API as CONTRACT.md describes it. */
@Injectable()
export class HttpDocumentSystemAdapter extends DocumentSystemAdapter implements OnModuleDestroy {
  private readonly logger = new Logger(HttpDocumentSystemAdapter.name);
  private readonly agents: GuardedAgents;
  private readonly http: AxiosInstance;
  private readonly kit: SessionKit;

  constructor(
    outbound: OutboundOptions,
    policy: RetryPolicy = DEFAULT_RETRY_POLICY,
    limits: CallLimits = DEFAULT_CALL_LIMITS,
    sessionsHeld = SESSIONS_HELD,
  ) {
    super();
    const sessions = new SessionTokenCache(sessionsHeld);
    const shares = new CallShares(limits.callsPerTenant);
    this.kit = { sessions, shares, policy, limits, parser: new AnswerParser(), logger: this.logger };
    // Tenants on one host (a SaaS document system) wait in their own shares, not for each other's sockets.
    this.agents = guardedAgents(new OutboundUrlPolicy(outbound), {
      maxSockets: limits.callsPerTenant * TENANTS_AT_FULL_SHARE,
    });
    this.http = axios.create({
      ...outboundAxiosConfig(this.agents),
      timeout: DOCUMENT_SYSTEM_TIMEOUT_MS,
      validateStatus: () => true,
    });
  }

  async openSession(
    tenantId: string,
    login: DocumentSystemLogin,
    tokens: AccessTokenSource,
    options: OpenSessionOptions = {},
  ): Promise<DocumentSystemSession> {
    if (!/^https?:\/\//.test(login.instanceUrl)) throw DocumentSystemException.credentialsInvalid();
    const key = sha256Hex(`${login.instanceUrl}\n${login.username}\n${login.password}`);
    const session = new HttpDocumentSystemSession(this.http, tenantId, login, tokens, key, this.kit, options.budget);
    await session.ensureSessionToken(options.fresh === true);
    return session;
  }

  async onModuleDestroy(): Promise<void> {
    this.agents.destroy();
    await this.kit.parser.close();
  }
}
