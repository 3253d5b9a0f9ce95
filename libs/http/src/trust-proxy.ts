import { INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestExpressApplication } from '@nestjs/platform-express';
import { parseTrustProxy } from '@app/config';

/**
 * Which forwarding proxies' X-Forwarded-For to believe (TRUST_PROXY), so `req.ip`, and the rate limits
 * keyed on it, name the client and not the load balancer. None by default: the header is then ignored.
 */
export function trustProxies(app: INestApplication): void {
  const raw = app.get(ConfigService, { strict: false }).get<string | number>('TRUST_PROXY');
  const setting = parseTrustProxy(raw);
  if (setting === null) throw new Error('TRUST_PROXY is malformed');
  (app as NestExpressApplication).set('trust proxy', setting);
}
