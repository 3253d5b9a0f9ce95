import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_ROLES = 'auth:roles';

/** The route needs no platform token (health, docs, OAuth callback, approval callback). */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiSecurity({}));

/** The caller must hold at least one of these roles, else 403. */
export const RequireAnyRole = (...roles: string[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_ROLES, roles),
    ApiResponse({
      status: 403,
      description: `\`FORBIDDEN\`: the token lacks every one of the roles ${roles.join(', ')}`,
      schema: { $ref: '#/components/schemas/ErrorResponse' },
    }),
  );

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);

/** When the caller's token expires: work that outlives the request (an event stream) ends then. */
export const TokenExpiresAt = createParamDecorator(
  (_: unknown, context: ExecutionContext): Date => context.switchToHttp().getRequest().tokenExpiresAt,
);
