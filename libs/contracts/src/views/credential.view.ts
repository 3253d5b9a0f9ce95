/** `DataSource`: a plain user's inline credential, usable by its own data source only and deleted with it. */
export const CREDENTIAL_SCOPES = ['Tenant', 'Project', 'DataSource'] as const;
export type CredentialScope = (typeof CREDENTIAL_SCOPES)[number];

/** A document-system credential as the API shows it: never the password. */
export interface CredentialView {
  id: string;
  name: string;
  type: 'DocumentSystem';
  instanceUrl: string;
  username: string;
  passwordConfigured: boolean;
  scope: CredentialScope;
  projectId: string | null;
  /** Only for scope `DataSource`. */
  dataSourceId?: string | null;
  /** The last `POST …/validate`: null until checked, and again once the password, username or instance URL changes. */
  lastValidation: CredentialLastValidationView | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface CredentialLastValidationView {
  valid: boolean;
  checkedAt: string;
  /** Why it was refused (`Credentials are invalid`); null when valid. */
  error: string | null;
}

/** `POST /v1/credentials/{id}/validate`; invalid credentials answer 422 instead. */
export interface CredentialValidationView {
  valid: true;
}
