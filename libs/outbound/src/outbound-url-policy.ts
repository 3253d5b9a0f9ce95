import type { LookupAddress, LookupAllOptions, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from './address-ranges';
import { AddressFamily, resolveName } from './fair-lookup';

export interface OutboundOptions {
  /** Plain http allowed (local development and tests). */
  allowInsecure: boolean;
  /** Loopback, private, link-local, metadata … addresses allowed (local development and tests). */
  allowPrivate: boolean;
}

/** The rules an outbound URL can break, each with the sentence that names it. */
export const URL_RULES = {
  absolute: 'must be an absolute URL',
  https: 'must use https',
  credentials: 'must not carry credentials',
  publicAddress: 'must not point to a loopback, private, link-local, unique-local, CGNAT or metadata address',
} as const;
export type UrlRule = keyof typeof URL_RULES;

/** A connection refused because its address is not public. Carries no socket code and no address. */
export class OutboundAddressRefused extends Error {
  constructor() {
    super(
      `refused by the outbound URL policy: the host ${URL_RULES.publicAddress.replace('must not point', 'points')}`,
    );
    this.name = 'OutboundAddressRefused';
  }
}

/** Whether an error (or its cause, as axios wraps it) is a refusal of the outbound URL policy. */
export function isOutboundRefusal(error: unknown): boolean {
  return (
    error instanceof OutboundAddressRefused || (error instanceof Error && error.cause instanceof OutboundAddressRefused)
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Where outbound calls may go: https only (http when allowInsecure), and never to a non-public address
 * (unless allowPrivate). `brokenRule` judges a URL when it is saved; `lookup` and `refusesHost` judge
 * the address actually connected to, on every connection, so DNS rebinding fails.
 */
export class OutboundUrlPolicy {
  constructor(readonly options: OutboundOptions) {}

  /** The first rule `raw` breaks, or null. A host name passes here: it is judged when connecting. */
  brokenRule(raw: string): UrlRule | null {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'absolute';
    }
    if (url.protocol !== 'https:' && !(this.options.allowInsecure && url.protocol === 'http:')) return 'https';
    if (url.username || url.password) return 'credentials';
    return this.refusesHost(url.hostname) ? 'publicAddress' : null;
  }

  /** Whether a connection to `host` (an IP literal, or a localhost name) is refused before any lookup. */
  refusesHost(host: string | null | undefined): boolean {
    if (this.options.allowPrivate || !host) return false;
    const name = host
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (name === 'localhost' || name.endsWith('.localhost')) return true;
    return isIP(name) !== 0 && !isPublicAddress(name);
  }

  /**
   * A dns.lookup for http(s) agents that refuses names resolving to any non-public address. It resolves
   * without holding libuv's thread pool for a slow DNS server (fair-lookup.ts).
   */
  readonly lookup = (hostname: string, options: LookupAllOptions | number | object, callback: LookupCallback): void => {
    const wantsAll = typeof options === 'object' && (options as LookupAllOptions).all === true;
    resolveName(hostname, familyOf(options), { searchDomains: this.options.allowPrivate }).then(
      (addresses) => {
        if (!this.options.allowPrivate && addresses.some((a) => !isPublicAddress(a.address)))
          return callback(new OutboundAddressRefused(), []);
        if (wantsAll) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/** The family a lookup asks for, as dns.lookup reads its options: 4, 6, or 0 for either. */
function familyOf(options: LookupOptions | number | object): AddressFamily {
  const family = typeof options === 'number' ? options : (options as LookupOptions).family;
  if (family === 4 || family === 'IPv4') return 4;
  return family === 6 || family === 'IPv6' ? 6 : 0;
}
