import { ApiError } from './api-error';
import type { ConsoleConfig } from './types';

/** /console/config.json: where the approval-service is and whether development sign-in is on. */
export async function loadConsoleConfig(): Promise<ConsoleConfig> {
  let response: Response;
  try {
    response = await fetch('/console/config.json', { headers: { Accept: 'application/json' } });
  } catch (cause) {
    throw ApiError.unreachable('connector-service', cause);
  }
  if (!response.ok) throw await ApiError.from(response);
  return (await response.json()) as ConsoleConfig;
}

export async function requestDevToken(
  tenantId: string,
  userId: string,
  roles: string[],
  name?: string,
): Promise<string> {
  let response: Response;
  try {
    response = await fetch('/console/dev-token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ tenantId, userId, roles, ...(name ? { name } : {}) }),
    });
  } catch (cause) {
    throw ApiError.unreachable('connector-service', cause);
  }
  if (!response.ok) throw await ApiError.from(response);
  return ((await response.json()) as { token: string }).token;
}
