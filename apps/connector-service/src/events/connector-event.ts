import type { DataSourceSearchableEvent, SyncCompletedEvent } from '@app/contracts/payloads';

/** An event to the agent runtime on `connector-events`: job name `type`, Bull job id `eventId`. */
export interface ConnectorEvent {
  eventId: string;
  type: string;
  payload: object;
}

export function syncCompleted(payload: SyncCompletedEvent): ConnectorEvent {
  return { eventId: `sync-completed:${payload.syncRunId}`, type: payload.type, payload };
}

export function dataSourceSearchable(payload: DataSourceSearchableEvent): ConnectorEvent {
  return { eventId: `data-source-searchable:${payload.syncRunId}`, type: payload.type, payload };
}
