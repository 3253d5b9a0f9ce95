import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Pool, QueryConfig } from 'pg';
import { ConnectorEnv } from '../connector-env';

/** Enough for both cores of the database and a queue in front of them. */
const SEARCH_CONNECTIONS = 8;

/**
 * Connections of their own for the search statement PostgreSQL keeps a plan of. A connection that holds
 * that plan ran other large statements markedly slower (a search under a path prefix 16 → 25 ms, until
 * the plan was deallocated), so the service's other connections never prepare it.
 */
@Injectable()
export class SearchConnections implements OnModuleDestroy {
  private readonly logger = new Logger(SearchConnections.name);
  private pool: Pool | null = null;

  constructor(private readonly env: ConnectorEnv) {}

  async query<Row>(config: QueryConfig): Promise<Row[]> {
    return (await this.connections().query(config)).rows as Row[];
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.end();
  }

  private connections(): Pool {
    if (this.pool) return this.pool;
    this.pool = new Pool({
      connectionString: this.env.DATABASE_URL,
      max: SEARCH_CONNECTIONS,
      connectionTimeoutMillis: 10_000,
    });
    // An idle connection that breaks (the database restarted) leaves the pool; the next search opens another.
    this.pool.on('error', (error) => this.logger.warn(`search connection lost: ${error.message}`));
    return this.pool;
  }
}
