/** The signed-in person, kept in sessionStorage only (gone when the tab closes). */
export interface Session {
  token: string;
  userId: string;
  /** The token's `name`, else its `email`, when it carries one: what the console shows for the person. */
  displayName: string | null;
  tenantId: string;
  roles: string[];
  expiresAt: number | null;
}

const TOKEN_KEY = 'console.token';
const PROJECT_KEY = 'console.projectId';

/** A fixed demo project (there is no projects API); editable in the header. */
export const DEMO_PROJECT_ID = '00000000-0000-4000-8000-000000000101';
export const DEMO_TENANT_ID = '00000000-0000-4000-8000-000000000001';
export const DEMO_USER_ID = '00000000-0000-4000-8000-0000000000a1';
/** The demo admin's name (scripts/token.js and npm start sign it too). */
export const DEMO_USER_NAME = 'Demo admin';

/** Reads the token's claims for display; the services check its signature, not the console. */
export function sessionFromToken(token: string): Session | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as {
      sub?: unknown;
      name?: unknown;
      email?: unknown;
      tenant?: unknown;
      roles?: unknown;
      exp?: unknown;
    };
    if (typeof claims.sub !== 'string' || typeof claims.tenant !== 'string') return null;
    const roles = Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : [];
    return {
      token,
      userId: claims.sub,
      displayName:
        [claims.name, claims.email].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? null,
      tenantId: claims.tenant,
      roles,
      expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : null,
    };
  } catch {
    return null;
  }
}

export function storedSession(): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const session = token ? sessionFromToken(token) : null;
  return session && (session.expiresAt === null || session.expiresAt > Date.now()) ? session : null;
}

export function storeSession(session: Session | null): void {
  if (session) sessionStorage.setItem(TOKEN_KEY, session.token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function storedProjectId(): string {
  return sessionStorage.getItem(PROJECT_KEY) ?? DEMO_PROJECT_ID;
}

export function storeProjectId(projectId: string): void {
  sessionStorage.setItem(PROJECT_KEY, projectId);
}

export const canManageConnectors = (session: Session) =>
  session.roles.includes('admin') || session.roles.includes('oauth-connectors:manage');
