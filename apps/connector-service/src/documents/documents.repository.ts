import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import type { Chunk } from '../extraction/chunker';
import type { ExtractionStatus } from '../extraction/text-extractor';
import { DocumentEntity } from './document.entity';

/** Documents as retrieval and text extraction see them: reads, extraction results and their progress. */
@Injectable()
export class DocumentsRepository {
  constructor(
    @InjectRepository(DocumentEntity) private readonly documents: Repository<DocumentEntity>,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  find(id: string): Promise<DocumentEntity | null> {
    return this.documents.findOneBy({ id });
  }

  findInTenant(tenantId: string, id: string): Promise<DocumentEntity | null> {
    return this.documents.findOneBy({ id, tenantId });
  }

  /** The extracted text ('' when the document is gone). */
  async textOf(id: string): Promise<string> {
    const row = await this.documents.findOne({ where: { id }, select: { id: true, text: true } });
    return row?.text ?? '';
  }

  /** The hash of the content the document holds now (undefined when the document is gone). */
  async contentSha256Of(id: string): Promise<string | null | undefined> {
    const row: Pick<DocumentEntity, 'contentSha256'> | null = await this.documents.findOne({
      where: { id },
      select: { contentSha256: true },
    });
    return row?.contentSha256;
  }

  /**
   * Saves the text extracted from one content version, with its chunks, only while the document still
   * holds that content and waits for it (Pending → an extraction status): a job for replaced content,
   * or a repeated or given-up job after the text was saved, changes nothing (the row lock of this
   * conditional update orders it against a concurrent saveIngested). The search vectors of the document and of its
   * chunks are generated columns (migration 1795300012000-document-search). Returns whether it saved.
   */
  async saveExtraction(
    transaction: Transaction,
    target: { id: string; contentSha256: string | null },
    extraction: { status: ExtractionStatus; error: string | null; text: string },
    chunks: Chunk[],
  ): Promise<boolean> {
    const manager = managerOf(transaction);
    // An UPDATE … RETURNING answers [rows, count] through TypeORM.
    const [rows]: [Array<{ dataSourceId: string }>, number] = await manager.query(
      `UPDATE connector.documents SET text = $3, "extractionStatus" = $4, "extractionError" = $5, "updatedAt" = now()
       WHERE id = $1 AND "contentSha256" = $2 AND "extractionStatus" = 'Pending' RETURNING "dataSourceId"`,
      [target.id, target.contentSha256, extraction.text, extraction.status, extraction.error],
    );
    if (!rows.length) return false;
    await manager.query('DELETE FROM connector.document_chunks WHERE "documentId" = $1', [target.id]);
    if (chunks.length) {
      await manager.query(
        `INSERT INTO connector.document_chunks ("documentId", "dataSourceId", index, text)
         SELECT $1, $2, c.index, c.text FROM jsonb_to_recordset($3::jsonb) AS c(index int, text text)`,
        [target.id, rows[0].dataSourceId, JSON.stringify(chunks)],
      );
    }
    return true;
  }

  /** Documents still waiting for their text since before `before`, oldest first (their jobs may be lost). */
  pendingExtractions(before: Date, limit: number): Promise<Array<{ id: string; contentSha256: string }>> {
    return this.db.query(
      `SELECT id, "contentSha256" FROM connector.documents WHERE "extractionStatus" = 'Pending' AND "updatedAt" < $1 ORDER BY "updatedAt" LIMIT $2`,
      [before, limit],
    );
  }

  /** Documents of every data source waiting for their text (the partial index on Pending answers it). */
  async countAllPendingExtractions(): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.db.query(
      `SELECT count(*)::int AS n FROM connector.documents WHERE "extractionStatus" = 'Pending'`,
    );
    return n;
  }

  async countPendingExtractions(dataSourceId: string, transaction?: Transaction): Promise<number> {
    const manager = transaction ? managerOf(transaction) : this.db.manager;
    const [{ n }]: Array<{ n: number }> = await manager.query(
      `SELECT count(*)::int AS n FROM connector.documents WHERE "dataSourceId" = $1 AND "extractionStatus" = 'Pending'`,
      [dataSourceId],
    );
    return n;
  }

  /** Where the text extraction of a data source's documents stands: `done` ended without failure (text, unsupported, too large, not stored). */
  async extractionProgress(dataSourceId: string): Promise<{ done: number; pending: number; failed: number }> {
    const [progress]: Array<{ done: number; pending: number; failed: number }> = await this.db.query(
      `SELECT (count(*) FILTER (WHERE "extractionStatus" NOT IN ('Pending', 'Failed')))::int AS done,
              (count(*) FILTER (WHERE "extractionStatus" = 'Pending'))::int AS pending,
              (count(*) FILTER (WHERE "extractionStatus" = 'Failed'))::int AS failed
       FROM connector.documents WHERE "dataSourceId" = $1`,
      [dataSourceId],
    );
    return progress;
  }

  async contentHashes(dataSourceId: string): Promise<string[]> {
    const rows: Array<{ sha: string }> = await this.db.query(
      'SELECT DISTINCT "contentSha256" AS sha FROM connector.documents WHERE "dataSourceId" = $1 AND "contentSha256" IS NOT NULL',
      [dataSourceId],
    );
    return rows.map((r) => r.sha);
  }
}
