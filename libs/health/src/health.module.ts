import { DynamicModule, Module } from '@nestjs/common';
import { TerminusModule, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ServingStateModule } from '@app/http';
import { HealthController, READINESS_CHECKS } from './health.controller';
import { RedisHealthIndicator } from './redis-health.indicator';

@Module({})
export class HealthModule {
  /** Readiness checks PostgreSQL and Redis. */
  static withStores(): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false }), ServingStateModule],
      controllers: [HealthController],
      providers: [
        RedisHealthIndicator,
        {
          provide: READINESS_CHECKS,
          inject: [TypeOrmHealthIndicator, RedisHealthIndicator],
          useFactory: (db: TypeOrmHealthIndicator, redis: RedisHealthIndicator) => [
            () => db.pingCheck('database', { timeout: 2000 }),
            () => redis.isHealthy('redis'),
          ],
        },
      ],
    };
  }

  /** For an app without stores (the simulator): ready when live. */
  static standalone(): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false }), ServingStateModule],
      controllers: [HealthController],
      providers: [{ provide: READINESS_CHECKS, useValue: [] }],
    };
  }
}
