import { NestFactory } from '@nestjs/core';
import { configureHttpApp } from '@app/http';
import { RunningSimulator, simulatorClient } from '@app/testing';
import { AppModule } from '../../src/app.module';

export interface SimulatorStartOptions {
  /** Extra environment, e.g. `SIMULATOR_STATE_FILE` to keep its state across a restart. */
  env?: Record<string, unknown>;
  /** Listen on this port (default: any free one), e.g. that of a simulator started before. */
  port?: number;
}

/** The document-system simulator on a loopback port, in the test's process, with its seeded project. */
export async function startSimulator(options: SimulatorStartOptions = {}): Promise<RunningSimulator> {
  const app = await NestFactory.create(AppModule.forRoot({ env: { LOG_LEVEL: 'silent', ...options.env } }), {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  configureHttpApp(app, { title: 'Document-system simulator', description: 'test' });
  await app.listen(options.port ?? 0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { ...simulatorClient(url), app, close: () => app.close() };
}
