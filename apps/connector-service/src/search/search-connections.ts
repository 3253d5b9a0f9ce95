import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { DatabaseError, Pool, QueryConfig } from 'pg';
import { RetryLaterException } from '@app/errors';
import { ConnectorEnv } from '../connector-env';
import { SEARCH_SLOTS } from './search-slots';

export const SEARCH_TIMEOUT = 'SEARCH_TIMEOUT';
const QUERY_CANCELED = '57014';
const GENERIC_PLANS = 'SET plan_cache_mode = force_generic_plan';

/**
 * Connections of search's own, where every statement ends within SEARCH_TIMEOUT_MS (statement_timeout),
 * in two pools. Named statements (PostgreSQL keeps their generic plans) run on connections that run nothing
 * else: a connection that held such a plan ran other large statements markedly slower (a search under a path
 * prefix, then planned with its values, 16 → 25 ms, until the plan was deallocated). Statements without a
 * name (passages) run on the second pool.
 */
@Injectable()
export class SearchConnections implements OnModuleDestroy {
  private readonly logger = new Logger(SearchConnections.name);
  private readonly pools = new Map<'named' | 'unnamed', Pool>();

  constructor(private readonly env: ConnectorEnv) {}

  async query<Row>(config: QueryConfig): Promise<Row[]> {
    try {
      return (await this.pool(config.name ? 'named' : 'unnamed').query(config)).rows as Row[];
    } catch (error) {
      if (error instanceof DatabaseError && error.code === QUERY_CANCELED) throw this.timedOut();
      throw error;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.end()));
  }

  private pool(kind: 'named' | 'unnamed'): Pool {
    let pool = this.pools.get(kind);
    if (pool) return pool;
    pool = new Pool({
      connectionString: this.env.DATABASE_URL,
      max: SEARCH_SLOTS,
      connectionTimeoutMillis: 10_000,
      statement_timeout: this.env.SEARCH_TIMEOUT_MS,
    });
    // A named statement is planned once, without its values: left to choose, PostgreSQL may keep planning it
    // with them (its estimate of a few data sources' rows is not the generic plan's). Set on each new
    // connection, before its first statement (a client runs its statements in order).
    if (kind === 'named')
      pool.on('connect', (client) => {
        client.query(GENERIC_PLANS).catch((error: Error) => this.logger.warn(`search connection: ${error.message}`));
      });
    // An idle connection that breaks (the database restarted) leaves the pool; the next search opens another.
    pool.on('error', (error) => this.logger.warn(`search connection lost: ${error.message}`));
    this.pools.set(kind, pool);
    return pool;
  }

  private timedOut(): RetryLaterException {
    const seconds = this.env.SEARCH_TIMEOUT_MS / 1000;
    return new RetryLaterException(
      503,
      SEARCH_TIMEOUT,
      `The search took longer than ${seconds} s; narrow it (a data source, a path prefix, more words) or try again`,
      5,
    );
  }
}
