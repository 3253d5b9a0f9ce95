import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PageRangeView } from '@app/contracts/views';

/** A document's text as it stands: what its answer needs before the first slice of it is read. */
export interface StoredText {
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
   * Null when the document is gone. The measures were taken when the text was written, in this row version
   * (migration 1795300062000-text-measures), so no byte of the text is read; a row written before has none
   * and its text is measured here.
   */
  async stored(id: string): Promise<StoredText | null> {
    const rows: Array<{
      version: string;
      length: number;
      jsonBytes: number;
      starts: number[] | null;
      ends: number[] | null;
    }> = await this.db.query(
      `SELECT xmin::text AS version, coalesce("textLength", char_length(text)) AS length,
           coalesce("textJsonBytes", octet_length(to_json(text)::text) - 2) AS "jsonBytes",
           "pageStarts" AS starts, "pageEnds" AS ends
         FROM connector.documents WHERE id = $1`,
      [id],
    );
    if (!rows.length) return null;
    const { version, length, jsonBytes, starts, ends } = rows[0];
    const pages = (starts ?? []).map((start, i) => ({ page: i + 1, start, end: (ends as number[])[i] }));
    return { version, length, jsonBytes, pages };
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
