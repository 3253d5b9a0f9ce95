import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { TreeFileView, TreeFolderView } from '@app/contracts/views';

/** A folder as stored; the service adds the latest run's outcomes below it. */
export type TreeFolderRow = Omit<TreeFolderView, 'outcomes'>;

/** A position in a name-ordered listing: the page goes on after this name (and id, for equal names). */
export interface TreeKey {
  name: string;
  id: string;
}

/** Queries of the ingested hierarchy, in name order, a page at a time. */
@Injectable()
export class TreeRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async folder(dataSourceId: string, folderId: string): Promise<TreeFolderRow | null> {
    const [folder] = await this.db.query(
      `SELECT "folderId" AS id, name, path, "parentId" FROM connector.synced_folders WHERE "dataSourceId" = $1 AND "folderId" = $2`,
      [dataSourceId, folderId],
    );
    return folder ?? null;
  }

  /** The subfolders of `parentId` (the workgroups when null). */
  subfolders(
    dataSourceId: string,
    parentId: string | null,
    after: TreeKey | null,
    limit: number,
  ): Promise<TreeFolderRow[]> {
    return this.db.query(
      `SELECT "folderId" AS id, name, path, "parentId" FROM connector.synced_folders
       WHERE "dataSourceId" = $1 AND "parentId" IS NOT DISTINCT FROM $2
         AND ($3::text IS NULL OR (name, "folderId") > ($3::text, $4::text))
       ORDER BY name, "folderId" LIMIT $5`,
      [dataSourceId, parentId, after?.name ?? null, after?.id ?? null, limit],
    );
  }

  async files(dataSourceId: string, folderId: string, after: TreeKey | null, limit: number): Promise<TreeFileView[]> {
    const rows: Array<Omit<TreeFileView, 'modifiedAt'> & { modifiedAt: Date | null }> = await this.db.query(
      `SELECT id AS "documentId", name, path, size::float8 AS size, "modifiedAt", CASE WHEN "extractionStatus" = 'Skipped' THEN 'Skipped' ELSE 'Ingested' END AS status, "extractionStatus"
       FROM connector.documents
       WHERE "dataSourceId" = $1 AND "folderId" = $2
         AND ($3::text IS NULL OR (name, id) > ($3::text, $4::uuid))
       ORDER BY name, id LIMIT $5`,
      [dataSourceId, folderId, after?.name ?? null, after?.id ?? null, limit],
    );
    return rows.map((row) => ({ ...row, modifiedAt: row.modifiedAt?.toISOString() ?? null }));
  }
}
