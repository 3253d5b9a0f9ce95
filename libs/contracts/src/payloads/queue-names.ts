/**
 * Queues shared with the agent runtime. WARNING: a value here is a Redis key that running producers and
 * consumers agree on; renaming one needs a migration plan (drain the old queue first).
 */
export enum SharedQueue {
  /** Agent runtime → approval-service: a run reached a webhook approval step. */
  ApprovalRequests = 'approval-requests',
  /** approval-service → agent runtime: the outcome of an approval (jobId = approvalId). */
  ApprovalDecisions = 'approval-decisions',
  /** connector-service → agent runtime: a sync run ended. */
  ConnectorEvents = 'connector-events',
}
