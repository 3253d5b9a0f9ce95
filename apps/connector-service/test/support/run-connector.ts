/**
 * The connector in a child process of a test (startChildApp), so the test can kill it mid-work. With
 * TEST_SIMULATOR_URL, its connections take their tokens from that simulator.
 */
import { Test } from '@nestjs/testing';
import { runNestAppAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { OpenSimulatorConnections } from './open-simulator-connections';

runNestAppAsChild((env, role) => {
  const builder = Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] });
  const simulatorUrl = process.env.TEST_SIMULATOR_URL;
  return simulatorUrl
    ? builder.overrideProvider(ConnectionTokens).useValue(new OpenSimulatorConnections(simulatorUrl))
    : builder;
});
