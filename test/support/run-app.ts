/**
 * Runs one app in a child process for tests that need to kill it: `APP=approval-service` or
 * `connector-service`; configuration comes from TEST_APP_ENV (JSON), role from PROCESS_ROLE. With
 * TEST_SIMULATOR_URL, the connector's connections take their tokens from that simulator.
 */
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import type { ProcessRole } from '@app/config';

async function main(): Promise<void> {
  const env = JSON.parse(process.env.TEST_APP_ENV ?? '{}');
  if (process.env.APP === 'document-system-simulator') return runSimulator(env);
  const role = (process.env.PROCESS_ROLE ?? 'worker') as ProcessRole;
  const { AppModule } =
    process.env.APP === 'connector-service'
      ? await import('../../apps/connector-service/src/app.module')
      : await import('../../apps/approval-service/src/app.module');
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] });
  if (process.env.TEST_SIMULATOR_URL) {
    const { ConnectionTokens } =
      await import('../../apps/connector-service/src/document-system/connection-tokens.port');
    const { OpenSimulatorConnections } =
      await import('../../apps/connector-service/test/support/open-simulator-connections');
    builder = builder
      .overrideProvider(ConnectionTokens)
      .useValue(new OpenSimulatorConnections(process.env.TEST_SIMULATOR_URL));
  }
  const app = (await builder.compile()).createNestApplication({ logger: false });
  // Nest's loggers write through the app's pino logger, at the env's LOG_LEVEL (silent unless a test asks).
  app.useLogger(app.get(Logger));
  await app.init();
  process.send?.('ready');
}

/** The simulator listening on PORT (benchmarks run it in a process of its own). */
async function runSimulator(env: Record<string, unknown>): Promise<void> {
  const { NestFactory } = await import('@nestjs/core');
  const { configureHttpApp } = await import('@app/http');
  const { AppModule } = await import('../../apps/document-system-simulator/src/app.module');
  const app = await NestFactory.create(AppModule.forRoot({ env }), { bodyParser: false, logger: false });
  configureHttpApp(app, { title: 'simulator', description: 'simulator' });
  await app.listen(Number(env.PORT), '127.0.0.1');
  process.send?.('ready');
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
