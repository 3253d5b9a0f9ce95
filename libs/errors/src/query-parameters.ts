import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { problemsFailed } from './validation';

const ANY_QUERY_PARAMETERS = 'anyQueryParameters';

/** For routes outside the API (the console's pages, the metrics scrape) where any query string is fine. */
export const AnyQueryParameters = () => SetMetadata(ANY_QUERY_PARAMETERS, true);

/**
 * An endpoint that takes no query parameters answers 400 VALIDATION_FAILED to any, as a query DTO
 * refuses keys it does not declare. Endpoints that take some read them as one DTO (`@Query() query: Dto`),
 * so the strict validation pipe decides there; this interceptor leaves them alone.
 */
@Injectable()
export class UndeclaredQueryInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http' && !this.open(context)) {
      const keys = Object.keys(context.switchToHttp().getRequest<Request>().query ?? {});
      if (keys.length)
        throw problemsFailed(keys.map((field) => ({ field, problems: [`property ${field} should not exist`] })));
    }
    return next.handle();
  }

  private open(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(ANY_QUERY_PARAMETERS, [context.getHandler(), context.getClass()]))
      return true;
    const args: object = Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {};
    return Object.keys(args).some((key) => key.startsWith(`${RouteParamtypes.QUERY}:`));
  }
}
