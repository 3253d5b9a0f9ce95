import { Injectable } from '@nestjs/common';
import { isTenantAdmin, Principal } from '@app/auth';
import { DataSourceEntity } from './data-source.entity';
import { DataSourceException } from './data-source.exception';
import { DataSourceMembersRepository } from './data-source-members.repository';
import { DataSourcesRepository } from './data-sources.repository';

export interface ProjectReadable {
  ids: string[];
  /** How many data sources the project has (the caller may read `ids` of them). */
  inProject: number;
}

/**
 * Access is governed per data source: its members and the tenant's admins may use it; anyone else
 * gets 404, exactly as for a data source that does not exist. Changing it (settings, selection,
 * members, deletion) takes its creator or a tenant admin; other members get 403.
 */
@Injectable()
export class DataSourceAccess {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly members: DataSourceMembersRepository,
  ) {}

  async readable(principal: Principal, id: string): Promise<DataSourceEntity> {
    const source = await this.repository.findInTenant(principal.tenantId, id);
    if (!source) throw DataSourceException.notFound();
    if (isTenantAdmin(principal) || (await this.members.isMember(id, principal.userId))) return source;
    throw DataSourceException.notFound();
  }

  async manageable(principal: Principal, id: string): Promise<DataSourceEntity> {
    const source = await this.readable(principal, id);
    if (source.createdBy === principal.userId || isTenantAdmin(principal)) return source;
    throw DataSourceException.manageForbidden();
  }

  /** The project's data sources the caller may read, and how many it has. */
  async readableInProject(principal: Principal, projectId: string): Promise<ProjectReadable> {
    const reach = await this.repository.projectReach(
      principal.tenantId,
      projectId,
      principal.userId,
      isTenantAdmin(principal),
    );
    const ids = reach.filter((source) => source.readable).map((source) => source.id);
    return { ids, inProject: reach.length };
  }

  /**
   * The data sources a search reads: the one asked for, else every one the caller may read in the project
   * (null: none). One the caller may not read, or of another project, is not found, as its hits are not.
   */
  async searchScope(principal: Principal, projectId: string, dataSourceId?: string): Promise<ProjectReadable | null> {
    const readable = await this.readableInProject(principal, projectId);
    const asked = dataSourceId?.toLowerCase();
    if (asked && !readable.ids.includes(asked)) throw DataSourceException.notFound();
    const ids = asked ? [asked] : readable.ids;
    return ids.length ? { ids, inProject: readable.inProject } : null;
  }
}
