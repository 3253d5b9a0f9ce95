import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import { requestDevToken } from '../api/console-config';
import type { ConsoleConfig } from '../api/types';
import { DEMO_TENANT_ID, DEMO_USER_ID, DEMO_USER_NAME, Session, sessionFromToken } from '../session/session';
import { Button, SelectField, TextField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction } from '../ui/hooks';

type RoleChoice = 'admin' | 'oauth-connectors:manage' | 'member';

/** Sign-in: paste a platform token, or (development only) get one for a tenant, user and role. */
export function SignInPage({
  config,
  onSignedIn,
  ended,
}: {
  config: ConsoleConfig;
  onSignedIn: (session: Session) => void;
  ended: boolean;
}) {
  const [token, setToken] = useState('');
  const [tokenProblem, setTokenProblem] = useState<string[]>();
  const [tenantId, setTenantId] = useState(DEMO_TENANT_ID);
  const [userId, setUserId] = useState(DEMO_USER_ID);
  const [role, setRole] = useState<RoleChoice>('admin');
  const [name, setName] = useState('');
  const dev = useAction();

  const usePasted = (event: FormEvent) => {
    event.preventDefault();
    const session = sessionFromToken(token.trim());
    if (!session)
      return setTokenProblem(['This is not a platform token: paste the whole JWT (three parts separated by dots).']);
    if (session.expiresAt !== null && session.expiresAt <= Date.now())
      return setTokenProblem(['This token has expired: get a new one (npm run token).']);
    onSignedIn(session);
  };

  const useDev = (event: FormEvent) => {
    event.preventDefault();
    void dev.run(async () => {
      const roles = role === 'member' ? [] : [role];
      // The demo admin has a name; another user only the one typed.
      const named = name.trim() || (userId.trim() === DEMO_USER_ID ? DEMO_USER_NAME : undefined);
      const signed = await requestDevToken(tenantId.trim(), userId.trim(), roles, named);
      const session = sessionFromToken(signed);
      if (!session) throw new ApiError(500, 'BAD_TOKEN', 'The development token could not be read');
      onSignedIn(session);
    });
  };

  return (
    <main className="sign-in">
      <h1>Connector console</h1>
      <p className="muted">
        Register OAuth connectors, connect document systems, pick folders, watch syncs, search, and follow approvals.
      </p>
      {ended ? <ErrorNotice error={new ApiError(401, 'UNAUTHENTICATED', 'Your session has ended')} /> : null}
      <div className="sign-in-options">
        <form className="card" onSubmit={usePasted} aria-labelledby="paste-title">
          <h2 id="paste-title">Sign in with a platform token</h2>
          <TextField
            label="Platform token (JWT)"
            value={token}
            onChange={(v) => (setToken(v), setTokenProblem(undefined))}
            problems={tokenProblem}
            hint="Kept in this browser tab only; closing the tab signs you out."
            required
          />
          <Button type="submit" kind="primary">
            Sign in
          </Button>
        </form>
        {config.devLogin ? (
          <form className="card" onSubmit={useDev} aria-labelledby="dev-title">
            <h2 id="dev-title">Development sign-in</h2>
            <p className="muted">On because CONSOLE_DEV_LOGIN=true. Never turn it on in production.</p>
            <TextField
              label="Tenant"
              value={tenantId}
              onChange={setTenantId}
              problems={problemsOf(dev.error, 'tenantId')}
              required
            />
            <TextField
              label="User"
              value={userId}
              onChange={setUserId}
              problems={problemsOf(dev.error, 'userId')}
              required
            />
            <TextField label="Name (optional, shown instead of the user id)" value={name} onChange={setName} />
            <SelectField<RoleChoice>
              label="Role"
              value={role}
              onChange={setRole}
              options={[
                { value: 'admin', label: 'admin (manages connectors and credentials)' },
                { value: 'oauth-connectors:manage', label: 'oauth-connectors:manage' },
                { value: 'member', label: 'member (no role)' },
              ]}
            />
            <Button type="submit" kind="primary" busy={dev.busy} busyLabel="Signing in…">
              Sign in for development
            </Button>
            {dev.error instanceof ApiError && dev.error.code === 'VALIDATION_FAILED' ? null : (
              <ErrorNotice error={dev.error} />
            )}
          </form>
        ) : null}
      </div>
    </main>
  );
}

const problemsOf = (error: unknown, field: string) =>
  error instanceof ApiError ? error.fieldProblems[field] : undefined;
