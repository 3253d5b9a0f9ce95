import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DocumentExtractionStatus, PageRangeView } from '@app/contracts/views';

/**
 * A document's text as it stands, with the document's fields its answer shows: all from one row version, so
 * the answer's ETag (which names the version) never stands over another version's name or status.
 */
export interface StoredText {
  documentId: string;
  dataSourceId: string;
  name: string;
  path: string;
  extractionStatus: DocumentExtractionStatus;
  extractionError: string | null;
  /** The row's version (`xmin`: any update of the row changes it); every slice is read from this one. */
  version: string;
  /** In characters (code points), as substr counts them. */
  length: number;
  /** Its size in UTF-8 once escaped as a JSON string, without the quotes (PostgreSQL escapes as JSON.stringify does). */
  jsonBytes: number;
  pages: PageRangeView[];
}

/** The extracted text of documents, read in slices so that no answer holds a whole text of up to 16 MiB. */
@Injectable()
export class DocumentTextsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Null when the tenant has no such document. One statement: a sync may write the row at any time. The
   * measures were taken when the text was written, in this row version (migration 1795300062000-text-measures),
   * so no byte of the text is read; a row written before has none and its text is measured here.
   */
  async stored(tenantId: string, id: string): Promise<StoredText | null> {
    const rows: Array<
      Omit<StoredText, 'pages'> & {
        starts: number[] | null;
        ends: number[] | null;
      }
    > = await this.db.query(
      `SELECT id AS "documentId", "dataSourceId", name, path, "extractionStatus", "extractionError", xmin::text AS version,
           coalesce("textLength", char_length(text)) AS length,
           coalesce("textJsonBytes", octet_length(to_json(text)::text) - 2) AS "jsonBytes",
           "pageStarts" AS starts, "pageEnds" AS ends
         FROM connector.documents WHERE id = $1 AND "tenantId" = $2`,
      [id, tenantId],
    );
    if (!rows.length) return null;
    const { starts, ends, ...text } = rows[0];
    const pages = (starts ?? []).map((start, i) => ({ page: i + 1, start, end: (ends as number[])[i] }));
    return { ...text, pages };
  }

  /** `length` characters of the text from `start` (0-based); null once the document is no longer at `version`. */
  async slice(id: string, version: string, start: number, length: number): Promise<string | null> {
    const rows: Array<{ text: string }> = await this.db.query(
      `SELECT substr(text, $3 + 1, $4) AS text FROM connector.documents WHERE id = $1 AND xmin::text = $2`,
      [id, version, start, length],
    );
    return rows.length ? rows[0].text : null;
  }
}
