import request from 'supertest';
import type { RunningSimulator } from '@app/testing';
import { startSimulator } from '../../../document-system-simulator/test/support/start-simulator';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorAppOptions, ConnectorTestApp, startConnectorApp } from './connector-app';
import { SimulatorConnections } from './simulator-connections';

export interface ConnectorOnSimulatorOptions<C extends SimulatorConnections> extends ConnectorAppOptions {
  /** Where the app's access tokens come from (default: plain SimulatorConnections). */
  connections?: (sim: RunningSimulator) => C;
  /** Changes what is started once the simulator is up, e.g. a proxy in front of PostgreSQL; adds to the app's options. */
  beforeStart?: (sim: RunningSimulator) => Promise<ConnectorAppOptions>;
  /** What must end while the app still runs, e.g. the simulator's faults, so that no call is left waiting. */
  beforeClose?: (sim: RunningSimulator) => unknown;
  /** What must end once the app has closed, e.g. the proxy it reached its database through. */
  afterClose?: () => unknown;
}

export interface ConnectorOnSimulator<C extends SimulatorConnections> {
  readonly sim: RunningSimulator;
  readonly connections: C;
  readonly sut: ConnectorTestApp;
  /** Requests to the app's HTTP server; a plain function, so it may be taken out of this object. */
  readonly http: () => ReturnType<typeof request>;
}

/**
 * Called inside a `describe`: a simulator and a connector app whose connections are the simulator's, started before
 * its tests and closed after them (the app first). Its callers stay with the spec.
 */
export function connectorOnSimulator<C extends SimulatorConnections = SimulatorConnections>(
  options: ConnectorOnSimulatorOptions<C> = {},
): ConnectorOnSimulator<C> {
  const { connections: connect, beforeStart, beforeClose, afterClose, ...app } = options;
  let sim: RunningSimulator;
  let connections: C;
  let sut: ConnectorTestApp;
  beforeAll(async () => {
    sim = await startSimulator();
    connections = connect ? connect(sim) : (new SimulatorConnections(sim) as C);
    const started = (await beforeStart?.(sim)) ?? {};
    sut = await startConnectorApp({
      ...app,
      ...started,
      env: { ...app.env, ...started.env },
      overrides: [[ConnectionTokens, connections], ...(app.overrides ?? []), ...(started.overrides ?? [])],
    });
  });
  afterAll(async () => {
    await beforeClose?.(sim);
    await sut?.close();
    await afterClose?.();
    await sim?.close();
  });
  return {
    get sim() {
      return sim;
    },
    get connections() {
      return connections;
    },
    get sut() {
      return sut;
    },
    http: () => request(sut.app.getHttpServer()),
  };
}
