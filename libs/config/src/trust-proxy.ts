import { isIP } from 'node:net';
import { ValidateBy } from 'class-validator';

/** Express's `trust proxy`: off, a hop count, or the addresses/CIDR ranges of the proxies to believe. */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** Reads TRUST_PROXY: empty → false; `2` → 2 hops; `10.0.0.0/8, 127.0.0.1` → those proxies. Null when malformed. */
export function parseTrustProxy(raw: string | number | undefined): TrustProxy | null {
  const value = String(raw ?? '').trim();
  if (!value) return false;
  if (/^\d+$/.test(value)) return Number(value) <= 32 ? Number(value) : null;
  const entries = value.split(',').map((e) => e.trim());
  return entries.every(isProxyAddress) ? entries : null;
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.includes(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

export const IsTrustProxy = () =>
  ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value: unknown) =>
        (typeof value === 'string' || typeof value === 'number') && parseTrustProxy(value) !== null,
      defaultMessage: () =>
        'TRUST_PROXY must be a hop count (e.g. 1) or comma-separated proxy addresses or CIDR ranges (e.g. 10.0.0.0/8)',
    },
  });
