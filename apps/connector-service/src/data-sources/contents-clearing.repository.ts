import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { SELECTS_SOMETHING } from './selects-something';

/**
 * Its contents are to go: it selects nothing, or it moved to another login and what the former one ingested is
 * still there. No run starts meanwhile (`lockReadyToSync`), so all it holds then is what it must not keep.
 */
const CONTENTS_TO_CLEAR = `(NOT selection @> $2::jsonb OR "loginChangedAt" IS NOT NULL)`;

/**
 * When a data source's contents go (its selection emptied, or its login changed: docs/ingestion.md), and what may
 * not happen to it until they have gone. Only the data source's row: the documents' repository removes them.
 */
@Injectable()
export class ContentsClearingRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Marks, in the transaction that moves it to another login (its row locked), that what the former login ingested
   * is to go, whatever the new login's selection: until that is removed, no run starts.
   */
  async loginChanged(transaction: Transaction, id: string): Promise<void> {
    await managerOf(transaction).query(
      `UPDATE connector.data_sources SET "loginChangedAt" = clock_timestamp() WHERE id = $1`,
      [id],
    );
  }

  /** Whether what a former login ingested is still to be removed. */
  async formerLoginLeft(id: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM connector.data_sources WHERE id = $1 AND "loginChangedAt" IS NOT NULL`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Share-locks the data source's row until the commit when it may sync: it selects something, and nothing a former
   * login ingested is left to remove. A change meanwhile waits, and one made before is seen. False otherwise.
   */
  lockReadyToSync(transaction: Transaction, id: string): Promise<boolean> {
    return this.lockIf(transaction, id, `NOT ${CONTENTS_TO_CLEAR}`);
  }

  /**
   * Share-locks the data source's row until the commit when its contents are to go (CONTENTS_TO_CLEAR): a selection
   * saved meanwhile waits, and one saved before is seen. False when they are to stay, or it is gone.
   */
  lockContentsToClear(transaction: Transaction, id: string): Promise<boolean> {
    return this.lockIf(transaction, id, CONTENTS_TO_CLEAR);
  }

  /**
   * Notes, while its contents are to go (CONTENTS_TO_CLEAR), that its documents are being removed (its runs completed
   * before no longer say what it holds) and drops the former login's mark; the row stays locked until the commit, so
   * a selection saved meanwhile waits. False when they are to stay, or it is gone: then nothing is to be removed.
   */
  async clearingContents(transaction: Transaction, id: string): Promise<boolean> {
    const [, affected] = await managerOf(transaction).query(
      `UPDATE connector.data_sources SET "contentsClearedAt" = clock_timestamp(), "loginChangedAt" = NULL
       WHERE id = $1 AND ${CONTENTS_TO_CLEAR}`,
      [id, SELECTS_SOMETHING],
    );
    return affected > 0;
  }

  private async lockIf(transaction: Transaction, id: string, condition: string): Promise<boolean> {
    const rows: unknown[] = await managerOf(transaction).query(
      `SELECT 1 FROM connector.data_sources WHERE id = $1 AND ${condition} FOR SHARE`,
      [id, SELECTS_SOMETHING],
    );
    return rows.length > 0;
  }
}
