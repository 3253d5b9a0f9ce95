import { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { validateEnv } from './validate-env';

/**
 * Global, validated configuration. `overrides` win over process.env (tests pass their own database,
 * prefix and secrets this way).
 */
export function validatedConfig<T extends object>(
  envClass: new () => T,
  overrides: Record<string, unknown> = {},
): Promise<DynamicModule> {
  return ConfigModule.forRoot({
    isGlobal: true,
    cache: true,
    ignoreEnvFile: true,
    validate: (raw) => validateEnv(envClass, { ...raw, ...overrides }),
  });
}
