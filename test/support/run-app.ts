/**
 * Runs one app in a child process for tests that need to kill it: `APP=approval-service` or
 * `connector-service`; configuration comes from TEST_APP_ENV (JSON), role from PROCESS_ROLE.
 */
import { NestFactory } from '@nestjs/core';
import type { ProcessRole } from '@app/config';

async function main(): Promise<void> {
  const env = JSON.parse(process.env.TEST_APP_ENV ?? '{}');
  const role = (process.env.PROCESS_ROLE ?? 'worker') as ProcessRole;
  const { AppModule } = process.env.APP === 'connector-service' ? await import('../../apps/connector-service/src/app.module') : await import('../../apps/approval-service/src/app.module');
  const app = await NestFactory.createApplicationContext(AppModule.forRoot({ role, env }), { logger: false });
  await app.init();
  process.send?.('ready');
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
