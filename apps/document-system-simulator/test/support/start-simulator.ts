import { createHttpApp, listenOnLoopback, RunningSimulator, simulatorClient } from '@app/testing';
import { AppModule } from '../../src/app.module';

export interface SimulatorStartOptions {
  /** Extra environment, e.g. `SIMULATOR_STATE_FILE` to keep its state across a restart. */
  env?: Record<string, unknown>;
  /** Listen on this port (default: any free one), e.g. that of a simulator started before. */
  port?: number;
}

/** The document-system simulator on a loopback port, in the test's process, with its seeded project. */
export async function startSimulator(options: SimulatorStartOptions = {}): Promise<RunningSimulator> {
  const module = AppModule.forRoot({ env: { LOG_LEVEL: 'silent', ...options.env } });
  const app = await createHttpApp(module, 'Document-system simulator');
  const url = await listenOnLoopback(app, options.port);
  return { ...simulatorClient(url), app, close: () => app.close() };
}
