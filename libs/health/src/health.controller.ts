import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorFunction } from '@nestjs/terminus';
import { DomainException } from '@app/errors';
import { Public } from '@app/auth';
import { ServingState } from '@app/http';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    @Inject(READINESS_CHECKS) private readonly readinessChecks: HealthIndicatorFunction[],
    private readonly serving: ServingState,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Whether the process is up (also while it shuts down)' })
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Whether the process can serve: its stores answer and it is not shutting down (503 NOT_READY otherwise)',
  })
  @HealthCheck()
  async ready() {
    // From the shutdown signal on, while requests are still served: load balancers send no more.
    if (this.serving.shuttingDown) throw new DomainException(503, 'NOT_READY', 'Not ready: shutting down');
    try {
      return await this.health.check(this.readinessChecks);
    } catch (error) {
      const result = (error as { getResponse?: () => { error?: Record<string, unknown> } }).getResponse?.();
      const down = Object.keys(result?.error ?? {});
      throw new DomainException(503, 'NOT_READY', `Not ready: ${down.join(', ') || 'unknown'} down`, [result]);
    }
  }
}
