import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import { ApprovalException } from '../approvals/approval.exception';
import { isPublicAddress } from './address-ranges';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Where webhooks may go: https only (http with WEBHOOK_ALLOW_INSECURE), and never to loopback, private,
 * link-local, multicast or metadata addresses (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS). The address check
 * runs in the socket's own DNS lookup, on the address actually connected to, so DNS rebinding fails.
 */
@Injectable()
export class WebhookUrlPolicy {
  readonly allowInsecure: boolean;
  readonly allowPrivate: boolean;

  constructor(config: ConfigService) {
    this.allowInsecure = config.get<boolean>('WEBHOOK_ALLOW_INSECURE') === true;
    this.allowPrivate = config.get<boolean>('WEBHOOK_ALLOW_PRIVATE_NETWORKS') === true;
  }

  /** Throws 400 naming the rule the URL breaks. */
  assertAllowed(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw ApprovalException.webhookUrlRefused('webhook.url must be an absolute URL');
    }
    if (url.protocol !== 'https:' && !(this.allowInsecure && url.protocol === 'http:')) {
      throw ApprovalException.webhookUrlRefused('webhook.url must use https');
    }
    if (url.username || url.password) throw ApprovalException.webhookUrlRefused('webhook.url must not carry credentials');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && !isPublicAddress(host)))) {
      throw ApprovalException.webhookUrlRefused('webhook.url must not point to a loopback, private, link-local or metadata address');
    }
    return url;
  }

  /** A dns.lookup for http(s) agents that refuses non-public addresses. */
  readonly lookup = (hostname: string, options: LookupAllOptions | number | object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...(typeof options === 'object' ? options : {}), all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = !this.allowPrivate && list.some((a) => !isPublicAddress(a.address));
      if (refused) {
        const denial: NodeJS.ErrnoException = new Error(`${hostname} resolves to a non-public address; refused`);
        denial.code = 'EADDRREFUSED_SSRF';
        return callback(denial, []);
      }
      const wantsAll = typeof options === 'object' && (options as LookupAllOptions).all;
      if (wantsAll) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
}
