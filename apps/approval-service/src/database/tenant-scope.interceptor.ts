import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import type { Principal } from '@app/auth';
import { PoolTurns } from '@app/database';

/**
 * Runs each authenticated request as its tenant's, so that every query it makes takes that tenant's turn for a
 * database connection (PoolTurns). Public routes (callbacks, decision pages: no principal) and queue jobs take
 * connections as before; so do the batched statements, which serve every tenant (StatementBatcher).
 */
@Injectable()
export class TenantScopeInterceptor implements NestInterceptor {
  constructor(private readonly turns: PoolTurns) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    // PlatformAuthGuard puts the principal on the request Fastify hands to Nest.
    const { principal } = context.switchToHttp().getRequest<FastifyRequest & { principal?: Principal }>();
    if (!principal) return next.handle();
    // next.handle() binds the handler to the async context it is called in: this tenant's.
    return this.turns.as(principal.tenantId, () => next.handle());
  }
}
