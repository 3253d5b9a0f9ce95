import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { PoolTurns } from './pool-turns';

/** What the platform's auth guard puts on a request it let through (Express or Fastify alike). */
type AuthenticatedRequest = { principal?: { tenantId: string } };

/**
 * Runs each authenticated request as its tenant's, so that every query it makes, in whichever feature, takes
 * that tenant's turn for a database connection (PoolTurns). Public routes (no principal: callbacks, decision
 * pages) and queue jobs take connections as before; so does work that serves every tenant and runs in a
 * context of its own (the approval-service's StatementBatcher).
 */
@Injectable()
export class TenantScopeInterceptor implements NestInterceptor {
  constructor(private readonly turns: PoolTurns) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const { principal } = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!principal) return next.handle();
    // next.handle() binds the handler to the async context it is called in: this tenant's.
    return this.turns.as(principal.tenantId, () => next.handle());
  }
}
