import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Principal } from '@app/auth';
import { DomainException } from '@app/errors';
import { DataSourceAccess } from '../data-sources/data-source-access';

/** The ingested hierarchy as in the document system: workgroups at the root, then folders and files. */
@Injectable()
export class TreeService {
  constructor(
    private readonly access: DataSourceAccess,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async view(principal: Principal, dataSourceId: string, folderId?: string) {
    await this.access.readable(principal, dataSourceId);
    let folder: { id: string; name: string; path: string; parentId: string | null } | null = null;
    if (folderId) {
      [folder] = await this.db.query(
        `SELECT "folderId" AS id, name, path, "parentId" FROM connector.synced_folders WHERE "dataSourceId" = $1 AND "folderId" = $2`,
        [dataSourceId, folderId],
      );
      if (!folder) throw new DomainException(404, 'FOLDER_NOT_FOUND', 'Folder not found in this data source');
    }
    const folders = await this.db.query(
      `SELECT "folderId" AS id, name, path, "parentId" FROM connector.synced_folders
       WHERE "dataSourceId" = $1 AND "parentId" IS NOT DISTINCT FROM $2 ORDER BY name`,
      [dataSourceId, folderId ?? null],
    );
    const files = folderId
      ? await this.db.query(
          `SELECT id AS "documentId", name, path, size::float8 AS size, "modifiedAt", 'Ingested' AS status, "extractionStatus"
           FROM connector.documents WHERE "dataSourceId" = $1 AND "folderId" = $2 ORDER BY name`,
          [dataSourceId, folderId],
        )
      : [];
    return { folder, folders, files };
  }
}
