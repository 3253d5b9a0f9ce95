/**
 * The connector in a child process of a test (startChildApp), so the test can kill it mid-work. With
 * TEST_SIMULATOR_URL, its connections take their tokens from that simulator.
 */
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { runAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { OpenSimulatorConnections } from './open-simulator-connections';

runAsChild(async (env, role) => {
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] });
  const simulatorUrl = process.env.TEST_SIMULATOR_URL;
  if (simulatorUrl)
    builder = builder.overrideProvider(ConnectionTokens).useValue(new OpenSimulatorConnections(simulatorUrl));
  const app = (await builder.compile()).createNestApplication({ logger: false });
  // Nest's loggers write through the app's pino logger, at the env's LOG_LEVEL (silent unless a test asks).
  app.useLogger(app.get(Logger));
  await app.init();
});
