import type { HttpClient } from './http-client';
import type { Approval, ApprovalStatus } from './types';

/** The approval-service's read side (the monitor is read-only). */
export function approvalApi(http: HttpClient) {
  return {
    list: (status?: ApprovalStatus | '') => http.get<Approval[]>('/v1/approvals', { status }),
    get: (approvalId: string) => http.get<Approval>(`/v1/approvals/${encodeURIComponent(approvalId)}`),
  };
}

export type ApprovalApi = ReturnType<typeof approvalApi>;
