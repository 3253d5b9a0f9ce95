import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';

/**
 * Documents' references to stored content (blobs, by hash), and the content locks that serialize, per
 * hash, the blob collector's "unreferenced, so delete" with an ingest's "stored, so refer to it": both
 * hold the lock until their transaction ends.
 */
@Injectable()
export class DocumentContentsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The content locks of several blobs, taken in one order so two transactions cannot wait on each other. */
  async lockContents(transaction: Transaction, hashes: string[]): Promise<void> {
    if (!hashes.length) return;
    // One round trip: the aggregate takes the locks row by row, in the sorted subquery's order.
    await managerOf(transaction).query(
      `SELECT count(pg_advisory_xact_lock(hashtextextended('blob:' || h.sha, 0)))
       FROM (SELECT DISTINCT sha FROM unnest($1::text[]) AS u(sha) ORDER BY sha) h`,
      [hashes],
    );
  }

  async lockContent(transaction: Transaction, sha256: string): Promise<void> {
    await managerOf(transaction).query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`blob:${sha256}`]);
  }

  async isReferenced(transaction: Transaction, sha256: string): Promise<boolean> {
    const rows = await managerOf(transaction).query(
      `SELECT 1 FROM connector.documents WHERE "contentSha256" = $1 LIMIT 1`,
      [sha256],
    );
    return rows.length > 0;
  }

  /** Of these hashes, the ones no document refers to any more (their blobs can go). */
  async unreferenced(hashes: string[]): Promise<string[]> {
    if (!hashes.length) return [];
    const rows: Array<{ sha: string }> = await this.db.query(
      `SELECT h.sha FROM unnest($1::text[]) AS h(sha) WHERE NOT EXISTS (SELECT 1 FROM connector.documents d WHERE d."contentSha256" = h.sha)`,
      [[...new Set(hashes)]],
    );
    return rows.map((r) => r.sha);
  }
}
