import { FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import type { Provider, ProviderInput, TokenEndpointAuthMethod } from '../api/types';
import { useConsole } from '../session/console-context';
import { Button, CopyValue, SelectField, TextField } from '../ui/controls';
import { ErrorNotice } from '../ui/error-notice';
import { useAction } from '../ui/hooks';

const EMPTY = {
  name: '',
  clientId: '',
  clientSecret: '',
  authorizationEndpoint: '',
  tokenEndpoint: '',
  revokeEndpoint: '',
  scopes: 'openid offline_access',
  method: 'CLIENT_SECRET_POST' as TokenEndpointAuthMethod,
};

export const scopesOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/** Registers an OAuth connector with every field of SPEC.md's table; the service's field problems show beside each field. */
export function ProviderForm({
  onRegistered,
  onCancel,
}: {
  onRegistered: (provider: Provider) => void;
  onCancel: () => void;
}) {
  const { connector, config } = useConsole();
  const [form, setForm] = useState(EMPTY);
  const action = useAction();
  const set = (key: keyof typeof EMPTY) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const problems = action.error instanceof ApiError ? action.error.fieldProblems : {};

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input: ProviderInput = {
      name: form.name,
      provider: 'GenericOAuth',
      authenticationType: 'StaticUserOauth',
      clientId: form.clientId,
      clientSecret: form.clientSecret,
      authorizationEndpoint: form.authorizationEndpoint,
      tokenEndpoint: form.tokenEndpoint,
      revokeEndpoint: form.revokeEndpoint,
      supportedScopes: scopesOf(form.scopes),
      behaviour: { tokenEndpointAuthMethod: form.method },
    };
    void action.run(async () => onRegistered(await connector.providers.create(input)));
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="register-title" noValidate>
      <h2 id="register-title">Register an OAuth connector</h2>
      <p className="muted">
        Register the client at the document system first, with this redirect URI, grant types Authorization Code and
        Refresh Token, and the scopes openid and offline_access.
      </p>
      <CopyValue label="Redirect URI" value={config.redirectUri} />
      <div className="grid-2">
        <TextField
          label="Name"
          value={form.name}
          onChange={set('name')}
          problems={problems.name}
          required
          hint="Shown to users when they connect."
        />
        <SelectField
          label="Provider"
          value="GenericOAuth"
          onChange={() => undefined}
          options={[{ value: 'GenericOAuth', label: 'GenericOAuth' }]}
          problems={problems.provider}
          required
        />
        <SelectField
          label="Authentication type"
          value="StaticUserOauth"
          onChange={() => undefined}
          options={[{ value: 'StaticUserOauth', label: 'StaticUserOauth (per-user OAuth)' }]}
          problems={problems.authenticationType}
          required
        />
        <TextField
          label="Client ID"
          value={form.clientId}
          onChange={set('clientId')}
          problems={problems.clientId}
          required
        />
        <TextField
          label="Client secret"
          type="password"
          value={form.clientSecret}
          onChange={set('clientSecret')}
          problems={problems.clientSecret}
          required
          autoComplete="new-password"
          hint="Encrypted at rest; never shown again."
        />
        <TextField
          label="Authorization endpoint"
          value={form.authorizationEndpoint}
          onChange={set('authorizationEndpoint')}
          problems={problems.authorizationEndpoint}
          required
          placeholder="https://auth.example.com/oauth/authorize"
        />
        <TextField
          label="Token endpoint"
          value={form.tokenEndpoint}
          onChange={set('tokenEndpoint')}
          problems={problems.tokenEndpoint}
          required
          placeholder="https://auth.example.com/oauth/token"
        />
        <TextField
          label="Revoke endpoint"
          value={form.revokeEndpoint}
          onChange={set('revokeEndpoint')}
          problems={problems.revokeEndpoint}
          hint="Leave empty: the document system has none."
        />
        <TextField
          label="Supported scopes"
          value={form.scopes}
          onChange={set('scopes')}
          problems={problems.supportedScopes}
          required
          hint="Space-separated. At least openid; offline_access lets access tokens be refreshed."
        />
        <SelectField<TokenEndpointAuthMethod>
          label="Token endpoint auth method"
          value={form.method}
          onChange={(v) => setForm((f) => ({ ...f, method: v }))}
          options={[
            { value: 'CLIENT_SECRET_POST', label: 'CLIENT_SECRET_POST (credentials in the body, default)' },
            { value: 'CLIENT_SECRET_BASIC', label: 'CLIENT_SECRET_BASIC (HTTP Basic auth)' },
          ]}
          problems={problems['behaviour.tokenEndpointAuthMethod']}
        />
      </div>
      <ErrorNotice error={action.error} />
      <div className="row">
        <Button type="submit" kind="primary" busy={action.busy} busyLabel="Registering…">
          Register connector
        </Button>
        <Button kind="link" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
