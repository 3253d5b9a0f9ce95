import type { ErrorBody } from '@app/errors';
import type * as views from '../views';
import type * as approval from './approval.responses';
import type * as credential from './credential.responses';
import type * as dataSource from './data-source.responses';
import type * as document from './document.responses';
import type { ErrorResponse } from './error.response';
import type * as oauth from './oauth.responses';
import type * as syncRun from './sync-run.responses';
import type * as syncRunFile from './sync-run-file.responses';

/**
 * `implements` makes each schema class carry every field of its view; this also fails the type check
 * when a class documents a field the view does not have, so the OpenAPI document cannot drift either.
 */
type Same<A, B> = [A, keyof A] extends [B, keyof B] ? ([B, keyof B] extends [A, keyof A] ? true : false) : false;
type Check<T extends true> = T;

export type SchemasMatchViews = [
  Check<Same<ErrorResponse, views.ErrorView>>,
  Check<Same<ErrorBody, views.ErrorView>>,
  Check<Same<oauth.ProviderResponse, views.ProviderView>>,
  Check<Same<oauth.AuthorizationStartResponse, views.AuthorizationStartView>>,
  Check<Same<oauth.ConnectionResponse, views.ConnectionView>>,
  Check<Same<credential.CredentialResponse, views.CredentialView>>,
  Check<Same<credential.CredentialValidationResponse, views.CredentialValidationView>>,
  Check<Same<credential.CredentialLastValidationResponse, views.CredentialLastValidationView>>,
  Check<Same<dataSource.DataSourceResponse, views.DataSourceView>>,
  Check<Same<dataSource.DataSourceDetailResponse, views.DataSourceDetailView>>,
  Check<Same<dataSource.MemberResponse, views.MemberView>>,
  Check<Same<dataSource.PickerPageResponse, views.PickerPageView>>,
  Check<Same<syncRun.SyncRunResponse, views.SyncRunView>>,
  Check<Same<syncRun.SyncStartResponse, views.SyncStartView>>,
  Check<Same<syncRunFile.SyncRunFilesPageResponse, views.SyncRunFilesPageView>>,
  Check<Same<syncRunFile.RunFileOutcomeCountsResponse, views.RunFileOutcomeCounts>>,
  Check<Same<syncRun.DeletionsConfirmedResponse, views.DeletionsConfirmedView>>,
  Check<Same<document.DocumentResponse, views.DocumentView>>,
  Check<Same<document.DocumentTextResponse, views.DocumentTextView>>,
  Check<Same<document.TreePageResponse, views.TreePageView>>,
  Check<Same<document.SearchPageResponse, views.SearchPageView>>,
  Check<Same<document.PassagesResponse, views.PassagesView>>,
  Check<Same<document.PassageResponse, views.PassageView>>,
  Check<Same<document.PageRangeResponse, views.PageRangeView>>,
  Check<Same<approval.ApprovalResponse, views.ApprovalView>>,
  Check<Same<approval.ApprovalListItemResponse, views.ApprovalListItemView>>,
  Check<Same<approval.ApprovalCreatedResponse, views.ApprovalCreatedView>>,
  Check<Same<approval.RedeliveryResponse, views.RedeliveryView>>,
  Check<Same<approval.WebhookTestResponse, views.WebhookTestView>>,
  Check<Same<approval.CallbackDecisionResponse, views.CallbackDecisionView>>,
];
