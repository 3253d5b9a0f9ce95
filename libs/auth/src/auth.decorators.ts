import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** The route needs no platform token (health, docs, OAuth callback, approval callback). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The caller must hold at least one of these roles, else 403. */
export const RequireAnyRole = (...roles: string[]) => SetMetadata(REQUIRED_ROLES, roles);

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);

/** When the caller's token expires: work that outlives the request (an event stream) ends then. */
export const TokenExpiresAt = createParamDecorator(
  (_: unknown, context: ExecutionContext): Date => context.switchToHttp().getRequest().tokenExpiresAt,
);
