export enum SyncErrorCode {
  InProgress = 'SYNC_IN_PROGRESS',
  NothingSelected = 'NOTHING_SELECTED',
  RunNotFound = 'SYNC_RUN_NOT_FOUND',
  NotActive = 'SYNC_RUN_NOT_ACTIVE',
}
