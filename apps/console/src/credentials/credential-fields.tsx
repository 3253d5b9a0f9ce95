import type { CredentialInput } from '../api/types';

/** The scopes one may ask for; `DataSource` is the server's answer for a plain user's inline credential. */
type RequestedScope = CredentialInput['scope'];
import { SelectField, TextField } from '../ui/controls';

export interface CredentialDraft {
  name: string;
  instanceUrl: string;
  username: string;
  password: string;
  scope: RequestedScope;
}

export const EMPTY_CREDENTIAL: CredentialDraft = {
  name: '',
  instanceUrl: '',
  username: '',
  password: '',
  scope: 'Tenant',
};

export function credentialInput(draft: CredentialDraft, projectId: string): CredentialInput {
  return {
    name: draft.name,
    type: 'DocumentSystem',
    instanceUrl: draft.instanceUrl,
    username: draft.username,
    password: draft.password,
    scope: draft.scope,
    ...(draft.scope === 'Project' ? { projectId } : {}),
  };
}

/**
 * SPEC.md's credential fields (name, type, instance URL, username, password, scope). `prefix` maps the
 * service's field problems when the credential is nested (`credential.username` in a data source).
 */
export function CredentialFields({
  draft,
  onChange,
  problems,
  prefix = '',
}: {
  draft: CredentialDraft;
  onChange: (draft: CredentialDraft) => void;
  problems: Record<string, string[]>;
  prefix?: string;
}) {
  const set = (key: keyof CredentialDraft) => (value: string) => onChange({ ...draft, [key]: value });
  const p = (field: string) => problems[prefix + field];
  return (
    <div className="grid-2">
      <TextField label="Credential name" value={draft.name} onChange={set('name')} problems={p('name')} required />
      <SelectField
        label="Type"
        value="DocumentSystem"
        onChange={() => undefined}
        options={[{ value: 'DocumentSystem', label: 'Document system' }]}
        problems={p('type')}
        required
      />
      <TextField
        label="Instance URL"
        value={draft.instanceUrl}
        onChange={set('instanceUrl')}
        problems={p('instanceUrl')}
        required
        placeholder="https://acme.docs.example.com"
        hint="Base URL of the tenant's document-system instance."
      />
      <TextField
        label="Username"
        value={draft.username}
        onChange={set('username')}
        problems={p('username')}
        required
        autoComplete="off"
      />
      <TextField
        label="Password"
        type="password"
        value={draft.password}
        onChange={set('password')}
        problems={p('password')}
        required
        autoComplete="new-password"
        hint="Stored encrypted; never shown again."
      />
      <SelectField<RequestedScope>
        label="Scope"
        value={draft.scope}
        onChange={set('scope')}
        options={[
          { value: 'Tenant', label: 'Tenant (any data source of the tenant)' },
          { value: 'Project', label: 'Project (this project only)' },
        ]}
        problems={p('scope') ?? p('projectId')}
        required
      />
    </div>
  );
}
