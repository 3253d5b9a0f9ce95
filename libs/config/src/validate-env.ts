import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * Validates raw environment variables against an env class. A missing or malformed variable stops the
 * service with a message naming every variable at fault.
 */
export function validateEnv<T extends object>(envClass: new () => T, raw: Record<string, unknown>): T {
  const env = plainToInstance(envClass, raw, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false, whitelist: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return env;
}
