import { segment, type HttpClient } from './http-client';
import type { Approval, ApprovalStatus, WebhookTest } from './types';

/** A webhook as the approval step configures it, for a test delivery. */
export interface WebhookToTest {
  url: string;
  authentication: { type: 'None' } | { type: 'BearerToken'; token: string };
  timeoutSeconds: number;
  maxRetryAttempts: number;
  message?: string;
}

/** The approval-service as the monitor uses it: read, redeliver an awaited webhook, test an endpoint. */
export function approvalApi(http: HttpClient) {
  return {
    list: (status?: ApprovalStatus | '') => http.get<Approval[]>('/v1/approvals', { status }),
    get: (approvalId: string) => http.get<Approval>(`/v1/approvals/${segment(approvalId)}`),
    redeliver: (approvalId: string) =>
      http.post<{ approvalId: string; attempt: number }>(`/v1/approvals/${segment(approvalId)}/redeliver`),
    testWebhook: (webhook: WebhookToTest) => http.post<WebhookTest>('/v1/approvals/test-webhook', { webhook }),
  };
}

export type ApprovalApi = ReturnType<typeof approvalApi>;
