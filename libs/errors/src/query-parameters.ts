import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { problemsFailed } from './validation';

const ANY_QUERY_PARAMETERS = 'anyQueryParameters';

/** For routes outside the API (the console's pages, the metrics scrape) where any query string is fine. */
export const AnyQueryParameters = () => SetMetadata(ANY_QUERY_PARAMETERS, true);

/**
 * An endpoint that takes no query parameters answers 400 VALIDATION_FAILED to any, as a query DTO
 * refuses keys it does not declare. Endpoints that take some read them as one DTO (`@Query() query: Dto`),
 * so the strict validation pipe decides there; this guard leaves them alone. A guard, not an
 * interceptor: a global interceptor puts every request of the app through RxJS.
 */
@Injectable()
export class UndeclaredQueryGuard implements CanActivate {
  /** Whether a handler is open to any query, read from its metadata once. */
  private readonly open = new WeakMap<object, boolean>();

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || this.isOpen(context)) return true;
    const keys = Object.keys(context.switchToHttp().getRequest<Request>().query ?? {});
    if (keys.length)
      throw problemsFailed(keys.map((field) => ({ field, problems: [`property ${field} should not exist`] })));
    return true;
  }

  private isOpen(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let open = this.open.get(handler);
    if (open === undefined) {
      open = this.readOpen(context);
      this.open.set(handler, open);
    }
    return open;
  }

  private readOpen(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(ANY_QUERY_PARAMETERS, [context.getHandler(), context.getClass()]))
      return true;
    const args: object = Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {};
    return Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.QUERY}:`));
  }
}

/**
 * A whole number in a query string, read as written in decimal digits: `0x10`, `1e1`, ` 5` or `5.0` stay
 * strings (which `@IsInt()` refuses), where `Number()` would have taken them as 16, 10, 5 and 5.
 */
export const FromDecimalDigits = (): PropertyDecorator =>
  Transform(({ value }) => (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value));
