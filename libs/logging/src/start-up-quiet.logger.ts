import type { LoggerService } from '@nestjs/common';

/** Nest's start-up chatter: a line per module, controller and route (about 230 before `npm start`'s banner). */
const START_UP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Logs Nest's start-up lines (modules loaded, routes mapped) at `debug`; everything else as `logger` does. */
export class StartUpQuietLogger implements LoggerService {
  constructor(private readonly logger: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) this.logger.debug?.(message, ...params);
    else this.logger.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.logger.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.logger.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.logger.debug?.(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.logger.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.logger.fatal?.(message, ...params);
  }
}
