import { DynamicModule, Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { AppEnv } from '@app/config';
import { REDACTED_PATHS } from './redaction';
import { QUIET_READS, requestLogLevel } from './request-log-level';

export interface LoggingOptions {
  /** Paths of reads, besides QUIET_READS, whose successful requests are logged at debug only. */
  quietReads?: RegExp[];
  /** A request's path as it is logged, for paths that carry a credential. */
  loggedPath?: (path: string) => string;
}

/** Structured JSON logs with a request id per request (taken from `x-request-id` when sent). */
@Module({})
export class LoggingModule {
  static forRoot(service: string, destination?: NodeJS.WritableStream, options: LoggingOptions = {}): DynamicModule {
    const quietReads = [...QUIET_READS, ...(options.quietReads ?? [])];
    const loggedPath = options.loggedPath ?? ((path: string) => path);
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRootAsync({
          inject: [AppEnv],
          useFactory: (env: AppEnv) => ({
            pinoHttp: [
              {
                level: env.LOG_LEVEL,
                base: { service },
                redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
                genReqId: requestIdOf,
                // The query string may carry OAuth codes and state: log the path only.
                serializers: {
                  req: (req: { id: string; method: string; url: string }) => ({
                    id: req.id,
                    method: req.method,
                    path: loggedPath(req.url?.split('?')[0] ?? ''),
                  }),
                },
                customLogLevel: requestLogLevel(quietReads),
              },
              destination ?? process.stdout,
            ],
          }),
        }),
      ],
    };
  }
}

/** The request's id in the logs: its `x-request-id` when that is a plain token, a new UUID otherwise. */
export function requestIdOf(req: IncomingMessage): string {
  return headerValue(req, 'x-request-id') ?? randomUUID();
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' && /^[\w.-]{1,128}$/.test(value) ? value : undefined;
}
