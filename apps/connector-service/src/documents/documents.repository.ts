import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import type { ExtractionStatus } from '../extraction/text-extractor';
import type { TextLayout } from '../extraction/text-layout';
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
   * chunks are generated columns (migration 1795300012000-document-search); the layout says where the chunks
   * and pages lie (migration 1795300054000-passages). Returns whether it saved.
   */
  async saveExtraction(
    transaction: Transaction,
    target: { id: string; contentSha256: string | null },
    extraction: { status: ExtractionStatus; error: string | null; text: string },
    layout: TextLayout,
  ): Promise<boolean> {
    const [rows]: [Array<{ dataSourceId: string }>, number] = await managerOf(transaction).query(
      `UPDATE connector.documents SET text = $3, "extractionStatus" = $4, "extractionError" = $5,
         "openingChunks" = $6::int[], "pageStarts" = $7::int[], "pageEnds" = $8::int[], "updatedAt" = now()
       WHERE id = $1 AND "contentSha256" = $2 AND "extractionStatus" = 'Pending' RETURNING "dataSourceId"`,
      [target.id, target.contentSha256, extraction.text, extraction.status, extraction.error, ...layoutValues(layout)],
    );
    if (!rows.length) return false;
    await this.replaceChunks(transaction, target.id, rows[0].dataSourceId, layout);
    return true;
  }

  /** Documents with text extracted before chunks and pages kept their place (migration 1795300050000), in id order. */
  withoutLayout(limit: number): Promise<Array<{ id: string; contentSha256: string }>> {
    return this.db.query(
      `SELECT id, "contentSha256" FROM connector.documents WHERE "extractionStatus" = 'Succeeded' AND "openingChunks" IS NULL ORDER BY id LIMIT $1`,
      [limit],
    );
  }

  /** Whether the document still holds this content, with its text, and has no layout yet. */
  async needsLayout(target: { id: string; contentSha256: string }): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `SELECT 1 FROM connector.documents WHERE id = $1 AND "contentSha256" = $2 AND "extractionStatus" = 'Succeeded' AND "openingChunks" IS NULL`,
      [target.id, target.contentSha256],
    );
    return rows.length > 0;
  }

  /**
   * Saves the layout of a document's text extracted before layouts were kept, only while it still holds
   * that content and has none: with `text`, the text extracted again (a PDF, for its pages) and its chunks;
   * without, the ranges of the stored text's chunks (cut again the same way), its vectors left alone.
   */
  async saveLayout(
    transaction: Transaction,
    target: { id: string; contentSha256: string },
    layout: TextLayout,
    text?: string,
  ): Promise<boolean> {
    const manager = managerOf(transaction);
    const [rows]: [Array<{ dataSourceId: string }>, number] = await manager.query(
      `UPDATE connector.documents SET text = coalesce($3, text), "openingChunks" = $4::int[], "pageStarts" = $5::int[],
         "pageEnds" = $6::int[], "updatedAt" = now()
       WHERE id = $1 AND "contentSha256" = $2 AND "extractionStatus" = 'Succeeded' AND "openingChunks" IS NULL
       RETURNING "dataSourceId"`,
      [target.id, target.contentSha256, text ?? null, ...layoutValues(layout)],
    );
    if (!rows.length) return false;
    if (text !== undefined) return this.replaceChunks(transaction, target.id, rows[0].dataSourceId, layout);
    const [, placed]: [unknown, number] = await manager.query(
      `UPDATE connector.document_chunks c SET start = r.start, "end" = r."end"
       FROM jsonb_to_recordset($2::jsonb) AS r(index int, start int, "end" int, length int)
       WHERE c."documentId" = $1 AND c.index = r.index AND length(c.text) = r.length`,
      [target.id, JSON.stringify(layout.deepChunks.map((c) => ({ ...c, text: undefined, length: c.end - c.start })))],
    );
    // Chunks cut another way than the stored ones (never expected): store them as cut now.
    if (placed !== layout.deepChunks.length || (await this.chunkCount(transaction, target.id)) !== placed)
      await this.replaceChunks(transaction, target.id, rows[0].dataSourceId, layout);
    return true;
  }

  private async replaceChunks(
    transaction: Transaction,
    documentId: string,
    dataSourceId: string,
    layout: TextLayout,
  ): Promise<true> {
    const manager = managerOf(transaction);
    await manager.query('DELETE FROM connector.document_chunks WHERE "documentId" = $1', [documentId]);
    if (layout.deepChunks.length)
      await manager.query(
        `INSERT INTO connector.document_chunks ("documentId", "dataSourceId", index, text, start, "end")
         SELECT $1, $2, c.index, c.text, c.start, c."end" FROM jsonb_to_recordset($3::jsonb) AS c(index int, text text, start int, "end" int)`,
        [documentId, dataSourceId, JSON.stringify(layout.deepChunks)],
      );
    return true;
  }

  private async chunkCount(transaction: Transaction, documentId: string): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await managerOf(transaction).query(
      'SELECT count(*)::int AS n FROM connector.document_chunks WHERE "documentId" = $1',
      [documentId],
    );
    return n;
  }

  /**
   * Documents still waiting for their text since before `before` (their jobs may be lost): each data source's
   * oldest first, the data sources taking turns, so one data source's backlog of thousands waiting their
   * turn does not keep another's lost document out of the sweep. Each data source is one probe of the
   * partial index on Pending documents.
   */
  pendingExtractions(
    before: Date,
    limit: number,
  ): Promise<Array<{ id: string; contentSha256: string; tenantId: string }>> {
    return this.db.query(
      `SELECT p.id, p."contentSha256", p."tenantId" FROM (
         SELECT d.*, row_number() OVER (PARTITION BY d."dataSourceId" ORDER BY d."updatedAt", d.id) AS turn
         FROM connector.data_sources s CROSS JOIN LATERAL (
           SELECT d.id, d."contentSha256", d."tenantId", d."dataSourceId", d."updatedAt" FROM connector.documents d
           WHERE d."dataSourceId" = s.id AND d."extractionStatus" = 'Pending' AND d."updatedAt" < $1
           ORDER BY d."updatedAt" LIMIT $2) d
       ) p ORDER BY p.turn, p."updatedAt" LIMIT $2`,
      [before, limit],
    );
  }

  /**
   * Documents of every data source waiting for their text (the partial index on Pending answers it). The
   * statement ends within `timeoutMs` (statement_timeout, waiting for a lock included) or fails: its
   * connection goes back to the pool however slow the table is to read.
   */
  countAllPendingExtractions(timeoutMs: number): Promise<number> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeoutMs)]);
      const [{ n }]: Array<{ n: number }> = await manager.query(
        `SELECT count(*)::int AS n FROM connector.documents WHERE "extractionStatus" = 'Pending'`,
      );
      return n;
    });
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

/** The document's layout columns: its opening chunks' ranges, and its pages' (null without pages). */
function layoutValues(layout: TextLayout): Array<number[][] | number[] | null> {
  return [layout.openingChunks, layout.pages?.starts ?? null, layout.pages?.ends ?? null];
}
