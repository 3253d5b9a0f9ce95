import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import axios, { isAxiosError } from 'axios';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { WebhookAuthenticationDto } from '@app/contracts';
import { WebhookUrlPolicy } from './webhook-url-policy';

export interface WebhookDelivery {
  url: string;
  /** Same on every attempt of one approval: the receiver's idempotency key. */
  messageId: string;
  body: Record<string, unknown>;
  authentication: WebhookAuthenticationDto;
  timeoutSeconds: number;
}

export interface AttemptResult {
  delivered: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** One POST of a webhook: auth headers, Standard Webhooks headers, a timeout, no redirects. */
@Injectable()
export class WebhookSender {
  private readonly signer?: Webhook;
  private readonly httpAgent: HttpAgent;
  private readonly httpsAgent: HttpsAgent;

  constructor(
    config: ConfigService,
    private readonly policy: WebhookUrlPolicy,
  ) {
    const secret = config.get<string>('WEBHOOK_SIGNING_SECRET');
    if (secret) this.signer = new Webhook(secret);
    this.httpAgent = new HttpAgent({ keepAlive: true, lookup: policy.lookup as never });
    this.httpsAgent = new HttpsAgent({ keepAlive: true, lookup: policy.lookup as never });
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
    try {
      const res = await axios.post(delivery.url, payload, {
        headers: this.headers(delivery, payload),
        timeout: delivery.timeoutSeconds * 1000,
        maxRedirects: 0,
        // Never through an environment proxy: the SSRF rules check the address actually connected to.
        proxy: false,
        validateStatus: () => true,
        httpAgent: this.httpAgent,
        httpsAgent: this.httpsAgent,
        responseType: 'text',
        maxContentLength: 64 * 1024,
        transformResponse: (data) => data,
      });
      const delivered = res.status >= 200 && res.status < 300;
      return result({ delivered, httpStatus: res.status, error: delivered ? null : `HTTP ${res.status}` });
    } catch (error) {
      return result({ delivered: false, httpStatus: null, error: describe(error, delivery.timeoutSeconds) });
    }
  }

  private headers(delivery: WebhookDelivery, payload: string): Record<string, string> {
    const timestamp = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'agent-platform-approvals/1.0',
      'webhook-id': delivery.messageId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      ...authHeaders(delivery.authentication),
    };
    if (this.signer) headers['webhook-signature'] = this.signer.sign(delivery.messageId, timestamp, payload);
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
      return { Authorization: `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}` };
    case 'CustomHeader':
      return { [auth.headerName ?? 'X-Webhook-Auth']: auth.headerValue ?? '' };
  }
}

function describe(error: unknown, timeoutSeconds: number): string {
  if (isAxiosError(error)) {
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT') return `No answer within ${timeoutSeconds} s`;
    const cause = (error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.code;
    if (cause === 'EADDRREFUSED_SSRF') return 'The webhook host resolves to a non-public address; refused';
    return `${cause ?? 'network error'}: ${error.message}`.slice(0, 300);
  }
  return String((error as Error)?.message ?? error).slice(0, 300);
}
