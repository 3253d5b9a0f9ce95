import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorFunction } from '@nestjs/terminus';
import { DomainException } from '@app/errors';
import { Public } from '@app/auth';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    @Inject(READINESS_CHECKS) private readonly readinessChecks: HealthIndicatorFunction[],
  ) {}

  /** The process is up. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The process can serve: its stores answer (503 otherwise). */
  @Get('ready')
  @HealthCheck()
  async ready() {
    try {
      return await this.health.check(this.readinessChecks);
    } catch (error) {
      const result = (error as { getResponse?: () => { error?: Record<string, unknown> } }).getResponse?.();
      const down = Object.keys(result?.error ?? {});
      throw new DomainException(503, 'NOT_READY', `Not ready: ${down.join(', ') || 'unknown'} down`, [result]);
    }
  }
}
