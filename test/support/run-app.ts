/**
 * Runs one app in a child process for tests that need to kill it: `APP=approval-service` or
 * `connector-service`; configuration comes from TEST_APP_ENV (JSON), role from PROCESS_ROLE. With
 * TEST_SIMULATOR_URL, the connector's connections take their tokens from that simulator.
 */
import { Test } from '@nestjs/testing';
import type { ProcessRole } from '@app/config';

async function main(): Promise<void> {
  const env = JSON.parse(process.env.TEST_APP_ENV ?? '{}');
  const role = (process.env.PROCESS_ROLE ?? 'worker') as ProcessRole;
  const { AppModule } = process.env.APP === 'connector-service' ? await import('../../apps/connector-service/src/app.module') : await import('../../apps/approval-service/src/app.module');
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] });
  if (process.env.TEST_SIMULATOR_URL) {
    const { ConnectionTokens } = await import('../../apps/connector-service/src/document-system/connection-tokens.port');
    const { OpenSimulatorConnections } = await import('../../apps/connector-service/test/support/open-simulator-connections');
    builder = builder.overrideProvider(ConnectionTokens).useValue(new OpenSimulatorConnections(process.env.TEST_SIMULATOR_URL));
  }
  const app = (await builder.compile()).createNestApplication({ logger: false });
  await app.init();
  process.send?.('ready');
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
