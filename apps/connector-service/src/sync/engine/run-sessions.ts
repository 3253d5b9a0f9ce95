import { Injectable } from '@nestjs/common';
import { DataSourceEntity } from '../../data-sources/data-source.entity';
import { DataSourcesRepository } from '../../data-sources/data-sources.repository';
import type { DocumentSystemSession } from '../../document-system/document-system.adapter';
import { DocumentSystemSessions } from '../../data-sources/document-system-sessions';

const TTL_MS = 30_000;

/**
 * The data source and an open document-system session per run, kept for a short while so the
 * thousands of steps of one run do not each reload and re-open them.
 */
@Injectable()
export class RunSessions {
  private readonly cache = new Map<
    string,
    { at: number; value: Promise<{ source: DataSourceEntity; docs: DocumentSystemSession }> }
  >();

  constructor(
    private readonly sources: DataSourcesRepository,
    private readonly sessions: DocumentSystemSessions,
  ) {}

  forRun(syncRunId: string, dataSourceId: string): Promise<{ source: DataSourceEntity; docs: DocumentSystemSession }> {
    const hit = this.cache.get(syncRunId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
    const value = this.load(dataSourceId);
    this.cache.set(syncRunId, { at: Date.now(), value });
    value.catch(() => this.cache.delete(syncRunId));
    this.evictOld();
    return value;
  }

  private async load(dataSourceId: string) {
    const source = await this.sources.get(dataSourceId);
    return { source, docs: await this.sessions.forDataSource(source) };
  }

  private evictOld(): void {
    for (const [key, entry] of this.cache) if (Date.now() - entry.at >= TTL_MS) this.cache.delete(key);
  }
}
