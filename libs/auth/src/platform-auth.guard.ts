import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainException } from '@app/errors';
import { IS_PUBLIC, REQUIRED_ROLES } from './auth.decorators';
import { TokenVerifier } from './token-verifier';

/** Global guard: every route needs a valid platform token unless marked @Public(). */
@Injectable()
export class PlatformAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: TokenVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const request = context.switchToHttp().getRequest();
    const header: string | undefined = request.headers.authorization;
    const match = header?.match(/^Bearer\s+(\S+)$/i);
    const verified = match ? await this.verifier.verifyToken(match[1]) : null;
    if (!verified) throw new DomainException(401, 'UNAUTHENTICATED', 'A valid bearer token is required');
    const { principal } = verified;
    request.principal = principal;
    request.tokenExpiresAt = verified.expiresAt;

    const roles = this.reflector.getAllAndOverride<string[]>(REQUIRED_ROLES, targets);
    if (roles?.length && !roles.some((role) => principal.roles.includes(role))) {
      throw new DomainException(403, 'FORBIDDEN', `This action needs one of the roles: ${roles.join(', ')}`);
    }
    return true;
  }
}
