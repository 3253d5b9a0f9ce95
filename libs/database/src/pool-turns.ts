import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { TenantTurns } from './tenant-turns';

/** The tenant whose request runs, as every query of that request sees it. */
interface TenantScope {
  tenantId: string;
  /** Connections the request holds now. */
  holding: number;
}

type Release = (error?: Error | boolean) => void;
type Connected = (error: Error | undefined, client?: PoolClient, release?: Release) => void;

/** Kept for a tenant that holds none, so that its first query starts at once however long others' take. */
export const RESERVED_CONNECTIONS = 2;
/** As pg-pool words it, so that a wait for a turn that runs out reads as a wait for a connection did. */
const connectTimeout = () => new Error('timeout exceeded when trying to connect');
/** Never thrown: no wait here is given an abandonment signal (PoolTurns.as). */

/**
 * Turns between tenants for the connections of the app's pool (docs/fair-share.md, "Database connections"):
 * work run `as` a tenant takes a turn (TenantTurns, as many as the pool has connections) before it takes a
 * connection, and gives it back with the connection. So a tenant's burst of queries waits behind itself, and
 * another tenant's query waits for at most one connection to come back, not for the whole burst; the last
 * RESERVED_CONNECTIONS go only to a tenant that holds none, so it starts at once even while a tenant's
 * statements hang on the rest.
 * - Work outside a tenant's scope (queue jobs, sweeps, public routes) goes straight to the pool, as before.
 * - A request that holds a connection already (a transaction, a second query at the same time) takes more
 *   without a turn: it never waits for a turn while it holds a connection, so it cannot deadlock here.
 * - A turn is given back when its connection is, whether the query succeeded or not; one still waiting after
 *   the pool's connectionTimeoutMillis gives up its place.
 */
@Injectable()
export class PoolTurns implements OnModuleInit {
  private readonly scopes = new AsyncLocalStorage<TenantScope>();
  private turns?: TenantTurns;

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Connections held and waited for by tenants' work in this process, now. */
  get load(): { running: number; waiting: number } {
    return this.turns?.load ?? { running: 0, waiting: 0 };
  }

  /**
   * Runs `work`, and all that continues from it, as `tenantId`'s. A caller's hang-up does not drop its waits:
   * a handler's later statement dropped half-way through would leave its earlier writes without the rest.
   */
  as<T>(tenantId: string, work: () => T): T {
    return this.scopes.run({ tenantId, holding: 0 }, work);
  }

  onModuleInit(): void {
    const pool = (this.db.driver as PostgresDriver).master as Pool;
    const { max = 10, connectionTimeoutMillis } = pool.options;
    const turns = new TenantTurns(max, {
      reserved: Math.min(RESERVED_CONNECTIONS, max - 1),
      maxWaitMs: connectionTimeoutMillis,
      tooLong: connectTimeout,
    });
    this.turns = turns;
    const connect = pool.connect.bind(pool) as (callback: Connected) => void;
    // TypeORM takes its connections with a callback; a caller without one is not ours and is let through.
    pool.connect = ((callback?: Connected) => {
      const scope = this.scopes.getStore();
      if (!callback || !scope) return connect(callback as Connected);
      if (scope.holding > 0) return connect(held(scope, callback, () => undefined));
      const { tenantId } = scope;
      turns.take(tenantId).then(
        () => connect(held(scope, callback, () => turns.pass(tenantId))),
        (error: Error) => callback(error),
      );
    }) as Pool['connect'];
  }
}

/** Counts the connection as the request's while it holds it; `givenBack` runs once, when it no longer does. */
function held(scope: TenantScope, callback: Connected, givenBack: () => void): Connected {
  scope.holding++;
  let holds = true;
  const giveBack = () => {
    if (!holds) return;
    holds = false;
    scope.holding--;
    givenBack();
  };
  return (error, client, release) => {
    if (error) {
      giveBack();
      return callback(error, client, release);
    }
    callback(undefined, client, (releaseError) => {
      (release as Release)(releaseError);
      giveBack();
    });
  };
}
