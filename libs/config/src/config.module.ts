import { DynamicModule, Module, Provider } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AppEnv, BaseEnv } from './base-env';
import { validateEnv } from './validate-env';

@Module({})
class EnvModule {}

/**
 * Global, validated configuration, injected by type: the app's env class for its own code, `AppEnv`
 * and (for services with stores) `BaseEnv` for the libraries, which know no app. `overrides` win over
 * process.env (tests pass their own database, prefix and secrets this way). Nest's ConfigModule still
 * does the reading, and still copies the variables it validated into process.env.
 */
export async function validatedConfig<T extends AppEnv>(
  envClass: new () => T,
  overrides: Record<string, unknown> = {},
): Promise<DynamicModule> {
  let env: T | undefined;
  const config = await ConfigModule.forRoot({
    isGlobal: true,
    cache: true,
    ignoreEnvFile: true,
    validate: (raw) => (env = validateEnv(envClass, { ...raw, ...overrides })),
  });
  const tokens = new Set<new () => AppEnv>([envClass, AppEnv, ...(env instanceof BaseEnv ? [BaseEnv] : [])]);
  const providers: Provider[] = [...tokens].map((token) => ({ provide: token, useValue: env }));
  return {
    module: EnvModule,
    global: true,
    imports: [config],
    providers,
    exports: [...tokens],
  };
}
