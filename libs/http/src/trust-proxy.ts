import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppEnv, parseTrustProxy } from '@app/config';

/**
 * Which forwarding proxies' X-Forwarded-For to believe (TRUST_PROXY), so `req.ip`, and the rate limits
 * keyed on it, name the client and not the load balancer. None by default: the header is then ignored.
 */
export function trustProxies(app: INestApplication): void {
  const setting = parseTrustProxy(app.get(AppEnv, { strict: false }).TRUST_PROXY);
  if (setting === null) throw new Error('TRUST_PROXY is malformed');
  (app as NestExpressApplication).set('trust proxy', setting);
}
