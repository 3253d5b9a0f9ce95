import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { PoolTurns } from './pool-turns';
import { TenantScopeInterceptor } from './tenant-scope.interceptor';

/** Tenants take turns for the connections of the app's pool (docs/fair-share.md, "Database connections"). */
@Module({
  providers: [PoolTurns, { provide: APP_INTERCEPTOR, useClass: TenantScopeInterceptor }],
  exports: [PoolTurns],
})
export class PoolTurnsModule {}
