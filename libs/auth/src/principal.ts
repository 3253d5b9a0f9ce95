/** The authenticated caller, from the platform JWT's `sub`, `tenant` and `roles` claims. */
export interface Principal {
  userId: string;
  tenantId: string;
  roles: string[];
}

export const ADMIN_ROLE = 'admin';
export const MANAGE_CONNECTORS_ROLE = 'oauth-connectors:manage';
/** The agent runtime: requests, tests and cancels approvals. */
export const AGENT_RUNTIME_ROLE = 'agent-runtime';

export function isTenantAdmin(principal: Principal): boolean {
  return principal.roles.includes(ADMIN_ROLE);
}

export function canManageConnectors(principal: Principal): boolean {
  return principal.roles.includes(ADMIN_ROLE) || principal.roles.includes(MANAGE_CONNECTORS_ROLE);
}
