import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { ConnectorEvent } from './connector-event';

/** The outbox of events to the agent runtime. */
@Injectable()
export class ConnectorEventsRepository {
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
   * Hands up to `limit` unpublished events older than `minAgeMs` to `publish` and marks them published, in one
   * transaction whose row locks keep other workers' passes off them. Returns how many it handed over.
   */
  relayUnpublished(
    minAgeMs: number,
    limit: number,
    publish: (events: ConnectorEvent[]) => Promise<void>,
  ): Promise<number> {
    return this.db.transaction(async (manager) => {
      const events: ConnectorEvent[] = await manager.query(
        `SELECT "eventId", type, payload FROM connector.connector_event_outbox
         WHERE "publishedAt" IS NULL AND "createdAt" < now() - make_interval(secs => $1)
         ORDER BY "createdAt" LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [minAgeMs / 1000, limit],
      );
      if (!events.length) return 0;
      await publish(events);
      await manager.query(
        'UPDATE connector.connector_event_outbox SET "publishedAt" = now() WHERE "eventId" = ANY($1::text[])',
        [events.map((e) => e.eventId)],
      );
      return events.length;
    });
  }
}
