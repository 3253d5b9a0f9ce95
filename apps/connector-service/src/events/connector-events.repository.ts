import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, OutboxTable, Transaction } from '@app/database';
import { ConnectorEvent } from './connector-event';

/** The outbox of events to the agent runtime. */
@Injectable()
export class ConnectorEventsRepository implements OutboxTable<ConnectorEvent> {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Records an event in the caller's transaction; recording the same event again changes nothing. */
  async record(transaction: Transaction, event: ConnectorEvent): Promise<void> {
    await managerOf(transaction).query(
      'INSERT INTO connector.connector_event_outbox ("eventId", type, payload) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [event.eventId, event.type, event.payload],
    );
  }

  async markPublished(eventIds: string[]): Promise<void> {
    await this.db.query(
      'UPDATE connector.connector_event_outbox SET "publishedAt" = now() WHERE "eventId" = ANY($1::text[]) AND "publishedAt" IS NULL',
      [eventIds],
    );
  }

  /**
   * Oldest first; of one transaction's (one `createdAt`), a run's SyncCompleted before its DataSourceSearchable, as
   * the writer publishes them.
   */
  async claimLeftovers(transaction: Transaction, limit: number, minAgeMs: number): Promise<ConnectorEvent[]> {
    return managerOf(transaction).query(
      `SELECT "eventId", type, payload FROM connector.connector_event_outbox
       WHERE "publishedAt" IS NULL AND "createdAt" < now() - make_interval(secs => $1)
       ORDER BY "createdAt", type = 'DataSourceSearchable' LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [minAgeMs / 1000, limit],
    );
  }

  async markLeftoversPublished(transaction: Transaction, events: ConnectorEvent[]): Promise<void> {
    await managerOf(transaction).query(
      'UPDATE connector.connector_event_outbox SET "publishedAt" = now() WHERE "eventId" = ANY($1::text[])',
      [events.map((e) => e.eventId)],
    );
  }
}
