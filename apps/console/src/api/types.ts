/**
 * The console's names for what the services answer. Every shape is the server's own, from
 * libs/contracts/src/views (alias `@app/contracts/views`), so a change there fails the console's type
 * check instead of drifting. Only what the console sends is written here, from the same views.
 */
import type { CredentialScope, CredentialView, ProviderView } from '@app/contracts/views';

export type {
  ErrorView as ErrorBody,
  ProviderView as Provider,
  TokenEndpointAuthMethod,
  ConnectionView as Connection,
  AuthorizationStartView as AuthorizationStart,
  CredentialScope,
  CredentialView as Credential,
  CredentialValidationView as CredentialValidation,
  IngestionStatus,
  FolderSelectionState,
  MarkMode,
  SelectionMark,
  Selection,
  DataSourceView as DataSource,
  DataSourceDetailView as DataSourceDetail,
  ExtractionProgressView as ExtractionProgress,
  PickerFolderView as PickerFolder,
  PickerPageView as PickerPage,
  SyncRunStatus,
  SyncCountsView as SyncCounts,
  SyncRunView as SyncRun,
  SyncStartView as SyncStart,
  TreeFolderView as TreeFolder,
  TreeFileView as TreeFile,
  TreePageView as TreePage,
  MemberView as Member,
  SearchHitView as SearchHit,
  SearchPageView as SearchPage,
  DocumentTextView as DocumentText,
  PageRangeView as PageRange,
  PassageView as Passage,
  PassagesView as PassagePage,
  ApprovalStatus,
  ApprovalLogEntryView as ApprovalLogEntry,
  ApprovalView as Approval,
  ApprovalListItemView as ApprovalListItem,
  WebhookTestView as WebhookTest,
  SyncRunFileView as SyncRunFile,
  SyncRunFilesPageView as SyncRunFilesPage,
  ConsoleConfigView as ConsoleConfig,
  DevTokenView as DevToken,
} from '@app/contracts/views';
export { APPROVAL_STATUSES, RUN_FILE_OUTCOMES } from '@app/contracts/views';
export type { RunFileOutcome } from '@app/contracts/views';

/** `POST /v2/OAuth/providers` and `PUT …/{id}`: the provider's fields, the secret optional on a change. */
export type ProviderInput = Pick<
  ProviderView,
  | 'name'
  | 'provider'
  | 'authenticationType'
  | 'clientId'
  | 'authorizationEndpoint'
  | 'tokenEndpoint'
  | 'revokeEndpoint'
  | 'supportedScopes'
  | 'behaviour'
> & { clientSecret?: string };

/** `POST /v1/credentials` and `PUT …/{id}` (also a data source's inline credential). */
export type CredentialInput = Pick<CredentialView, 'name' | 'type' | 'instanceUrl' | 'username'> & {
  password?: string;
  scope: Exclude<CredentialScope, 'DataSource'>;
  projectId?: string;
};
