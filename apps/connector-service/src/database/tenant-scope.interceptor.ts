import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { Principal } from '@app/auth';
import { PoolTurns } from '@app/database';

/**
 * Runs each authenticated request as its tenant's, so that every query it makes, in whichever feature,
 * takes that tenant's turn for a database connection (PoolTurns). Public routes (no principal) and queue jobs take connections as before.
 */
@Injectable()
export class TenantScopeInterceptor implements NestInterceptor {
  constructor(private readonly turns: PoolTurns) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const principal: Principal | undefined = http.getRequest<Request & { principal?: Principal }>().principal;
    if (!principal) return next.handle();
    // next.handle() binds the handler to the async context it is called in: this tenant's.
    return this.turns.as(principal.tenantId, () => next.handle());
  }
}
