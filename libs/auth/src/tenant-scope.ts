import { NotFoundException } from '@app/errors';
import type { Principal } from './principal';

/**
 * A resource of another tenant is reported exactly like a missing one (404, never 403), so ids
 * reveal nothing across tenants.
 */
export function ownedByTenant<T extends { tenantId: string }>(
  resource: T | null | undefined,
  principal: Principal,
  what: string,
): T {
  if (!resource || resource.tenantId !== principal.tenantId) throw new NotFoundException(what);
  return resource;
}
