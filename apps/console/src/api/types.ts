/** The shapes of the public API (../shared/CONTRACT.md) that the console reads. */

export interface ErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
  details: unknown[];
  [extra: string]: unknown;
}

export type TokenEndpointAuthMethod = 'CLIENT_SECRET_POST' | 'CLIENT_SECRET_BASIC';

export interface ProviderInput {
  name: string;
  provider: 'GenericOAuth';
  authenticationType: 'StaticUserOauth';
  clientId: string;
  clientSecret?: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  revokeEndpoint: string;
  supportedScopes: string[];
  behaviour: { tokenEndpointAuthMethod: TokenEndpointAuthMethod };
}

export interface Provider extends Omit<ProviderInput, 'clientSecret'> {
  id: string;
  clientSecretConfigured: boolean;
  secretVersion: number;
  redirectUri: string;
  warnings: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Connection {
  id: string;
  providerId: string;
  status: 'Active' | 'Expired' | 'NeedsReauth';
  scopes: string[];
  expiresAt: string | null;
  hasRefreshToken: boolean;
  secretVersion: number;
  createdAt: string;
}

export interface AuthorizationStart {
  authorizationUrl: string;
  state: string;
  expiresAt: string;
}

export type CredentialScope = 'Tenant' | 'Project';

export interface CredentialInput {
  name: string;
  type: 'DocumentSystem';
  instanceUrl: string;
  username: string;
  password?: string;
  scope: CredentialScope;
  projectId?: string;
}

export interface Credential extends Omit<CredentialInput, 'password' | 'projectId'> {
  id: string;
  passwordConfigured: boolean;
  projectId: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type IngestionStatus =
  'NotConfigured' | 'Pending' | 'Syncing' | 'Synced' | 'PartiallySynced' | 'Failed' | 'NeedsReauth';
export type FolderSelectionState = 'Selected' | 'Partial' | 'None';
export type MarkMode = 'include' | 'exclude';

export interface SelectionMark {
  folderId: string;
  mode: MarkMode;
  ancestorIds: string[];
}

export interface Selection {
  include: string[];
  exclude: string[];
}

export interface DataSource {
  id: string;
  projectId: string;
  name: string;
  credentialId: string;
  connectionId: string;
  selection: Selection;
  selectionMarks: SelectionMark[];
  schedule: { intervalMinutes: number } | null;
  ingestionStatus: IngestionStatus;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Only from `GET /v1/data-sources/{id}`: documents whose text is still being extracted. */
  pendingExtractions?: number;
  /** Only from `GET /v1/data-sources/{id}`: where the text extraction of its documents stands. */
  extraction?: ExtractionProgress;
}

/** `done`: extraction ended without failure (text extracted, or unsupported, too large, not stored). */
export interface ExtractionProgress {
  done: number;
  pending: number;
  failed: number;
}

export interface PickerFolder {
  id: string;
  name: string;
  path: string;
  hasChildren: boolean;
  selection: FolderSelectionState;
}

export interface PickerPage {
  items: PickerFolder[];
  nextCursor: string | null;
  notice?: string;
}

export type SyncRunStatus = 'Queued' | 'Running' | 'Succeeded' | 'PartiallySucceeded' | 'Failed' | 'Cancelled';

export interface SyncCounts {
  discovered: number;
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
  failed: number;
}

export interface SyncRun {
  id: string;
  dataSourceId: string;
  mode: 'Full' | 'Incremental';
  status: SyncRunStatus;
  counts: SyncCounts;
  bytesDownloaded: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
}

export interface TreeFolder {
  id: string;
  name: string;
  path: string;
  parentId: string | null;
}

export interface TreeFile {
  documentId: string;
  name: string;
  path: string;
  size: number;
  modifiedAt: string | null;
  status: string;
}

export interface TreeView {
  folder: TreeFolder | null;
  folders: TreeFolder[];
  files: TreeFile[];
}

export interface Member {
  userId: string;
  addedBy: string;
  createdAt: string;
}

export interface SearchHit {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  snippet: string;
  score: number;
}

export interface SearchPage {
  hits: SearchHit[];
  nextCursor: string | null;
}

export interface DocumentText {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  extraction: { status: string; error: string | null };
  text: string;
}

export const APPROVAL_STATUSES = [
  'Pending',
  'AwaitingDecision',
  'Approved',
  'Denied',
  'DeliveryFailed',
  'Cancelled',
  'TimedOut',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface ApprovalLogEntry {
  at: string;
  type:
    | 'Requested'
    | 'DeliveryAttempt'
    | 'Delivered'
    | 'DeliveryFailed'
    | 'CallbackRejected'
    | 'Decided'
    | 'Cancelled'
    | 'TimedOut';
  attempt: number | null;
  httpStatus: number | null;
  durationMs: number | null;
  error: string | null;
  comment: string | null;
}

export interface Approval {
  id: string;
  callbackId: string;
  executionId: string;
  stepId: string;
  agentName: string;
  message: string;
  status: ApprovalStatus;
  webhook: { url: string; authentication: { type: string }; timeoutSeconds: number; maxRetryAttempts: number };
  comment: string | null;
  decidedAt: string | null;
  createdAt: string;
  updatedAt: string;
  log: ApprovalLogEntry[];
}

export interface ConsoleConfig {
  approvalServiceUrl: string;
  devLogin: boolean;
  redirectUri: string;
}
