import { Injectable, Logger, OnModuleDestroy, ServiceUnavailableException } from '@nestjs/common';
import { ApprovalEnv } from '../approval-env';
import axios, { isAxiosError } from 'axios';
import type { Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import type { WebhookAuthenticationDto } from '@app/contracts/payloads';
import type { WebhookTestView } from '@app/contracts/views';
import { GuardedAgents, guardedAgents, isOutboundRefusal, outboundAxiosConfig } from '@app/outbound';
import { AttemptsInFlight } from './attempts-in-flight';
import { WebhookUrlPolicy } from './webhook-url-policy';

export interface WebhookDelivery {
  url: string;
  /** Same on every attempt of one approval: the receiver's idempotency key. */
  messageId: string;
  body: Record<string, unknown>;
  authentication: WebhookAuthenticationDto;
  timeoutSeconds: number;
}

/** One attempt's outcome; the test endpoint answers it as is. */
export type AttemptResult = WebhookTestView;

/** One POST of a webhook: auth headers, Standard Webhooks headers, a wall-clock deadline, no redirects. */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly logger = new Logger(WebhookSender.name);
  /** One per secret of WEBHOOK_SIGNING_SECRET: while rotating, a receiver holding either one can verify. */
  private readonly signers: Webhook[];
  private readonly agents: GuardedAgents;

  constructor(
    env: ApprovalEnv,
    private readonly policy: WebhookUrlPolicy,
    private readonly inFlight: AttemptsInFlight,
  ) {
    const secret = env.WEBHOOK_SIGNING_SECRET;
    this.signers = (secret ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((s) => new Webhook(s));
    this.agents = guardedAgents(policy);
  }

  /** Set once the process shuts down: an attempt its end cuts short is not the receiver's failure. */
  private closing = false;

  /** Cuts what is still sent once the attempts in flight have had their grace (none on app.close()). */
  async onModuleDestroy(): Promise<void> {
    await this.inFlight.ended();
    this.closing = true;
    this.agents.destroy();
  }

  async send(delivery: WebhookDelivery): Promise<AttemptResult> {
    const started = Date.now();
    const result = (partial: Omit<AttemptResult, 'durationMs'>) => ({ ...partial, durationMs: Date.now() - started });
    try {
      this.policy.assertAllowed(delivery.url);
    } catch (error) {
      return result({ delivered: false, httpStatus: null, error: (error as Error).message });
    }
    const payload = JSON.stringify(delivery.body);
    // The wall clock bounds the attempt, not inactivity: a receiver that trickles bytes cannot stretch it.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), delivery.timeoutSeconds * 1000);
    try {
      const res = await axios.post<Readable>(delivery.url, payload, {
        ...outboundAxiosConfig(this.agents),
        headers: this.headers(delivery, payload),
        signal: deadline.signal,
        timeout: delivery.timeoutSeconds * 1000,
        validateStatus: () => true,
        responseType: 'stream',
      });
      // The status line decides; the body is read up to its bound within the same deadline, or dropped.
      await readAtMost(res.data, MAX_ANSWER_BYTES, deadline.signal);
      const delivered = res.status >= 200 && res.status < 300;
      return result({ delivered, httpStatus: res.status, error: delivered ? null : `HTTP ${res.status}` });
    } catch (error) {
      // Not recorded as the receiver's failure: the attempt is sent again (its delayed job, or Bull's retry).
      if (this.closing && !deadline.signal.aborted)
        throw new ServiceUnavailableException('The service is shutting down: the attempt was cut short');
      return result({
        delivered: false,
        httpStatus: null,
        error: deadline.signal.aborted ? noAnswer(delivery.timeoutSeconds) : this.describe(error, delivery),
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private describe(error: unknown, delivery: WebhookDelivery): string {
    if (!isAxiosError(error)) return String((error as Error)?.message ?? error).slice(0, 300);
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT') return noAnswer(delivery.timeoutSeconds);
    if (isOutboundRefusal(error))
      this.logger.log(
        { host: new URL(delivery.url).hostname },
        'webhook refused: its host resolves to a non-public address',
      );
    // No socket code or resolved address: the delivery log must not work as a port scanner.
    return COULD_NOT_CONNECT;
  }

  private headers(delivery: WebhookDelivery, payload: string): Record<string, string> {
    const timestamp = new Date();
    // The service's own headers come last, so they win over an auth header of the same name (any case).
    const headers: Record<string, string> = {
      ...authHeaders(delivery.authentication),
      'content-type': 'application/json',
      'user-agent': 'agent-platform-approvals/1.0',
      'webhook-id': delivery.messageId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    };
    if (this.signers.length)
      headers['webhook-signature'] = this.signers.map((s) => s.sign(delivery.messageId, timestamp, payload)).join(' ');
    return headers;
  }
}

export function authHeaders(auth: WebhookAuthenticationDto): Record<string, string> {
  switch (auth.type) {
    case 'None':
      return {};
    case 'ApiKey':
      return { 'X-API-Key': auth.apiKey ?? '' };
    case 'BearerToken':
      return { Authorization: `Bearer ${auth.token ?? ''}` };
    case 'BasicAuth':
      return {
        Authorization: `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`,
      };
    case 'CustomHeader':
      return { [auth.headerName ?? 'X-Webhook-Auth']: auth.headerValue ?? '' };
  }
}

/** A receiver's answer is read at most this far; the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

const noAnswer = (timeoutSeconds: number) => `No answer within ${timeoutSeconds} s`;

/**
 * An attempt's error when no connection was made, for whatever reason: a host refused once resolved (a
 * non-public address) included, so that neither a test delivery nor an approval's log tells a member which
 * internal names exist. The service's log says why.
 */
export const COULD_NOT_CONNECT = 'Could not connect to the webhook URL';

/** Reads and drops an answer body: until its end, `limit` bytes, or the deadline, whichever comes first. */
function readAtMost(body: Readable, limit: number, deadline: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    let read = 0;
    const done = () => {
      deadline.removeEventListener('abort', done);
      body.destroy();
      resolve();
    };
    if (deadline.aborted) return done();
    deadline.addEventListener('abort', done);
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read >= limit) done();
    });
    body.once('end', done);
    body.once('error', done);
    body.once('close', done);
  });
}
