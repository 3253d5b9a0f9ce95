import { randomUUID } from 'node:crypto';
import { signPlatformToken } from '@app/auth';
import { TEST_JWT_SECRET } from './test-env';

export interface TestCaller {
  userId: string;
  tenantId: string;
  roles: string[];
  token: string;
  auth: { Authorization: string };
}

/** A platform caller with a signed token; a new tenant unless one is given. */
export async function testCaller(
  options: { tenantId?: string; userId?: string; roles?: string[] } = {},
): Promise<TestCaller> {
  const claims = {
    tenantId: options.tenantId ?? randomUUID(),
    userId: options.userId ?? randomUUID(),
    roles: options.roles ?? [],
  };
  const token = await signPlatformToken(TEST_JWT_SECRET, claims);
  return { ...claims, token, auth: { Authorization: `Bearer ${token}` } };
}
