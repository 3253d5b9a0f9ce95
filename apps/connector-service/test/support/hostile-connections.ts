import type { INestApplication } from '@nestjs/common';
import type { RunningSimulator, TestCaller } from '@app/testing';
import { dataSourceSelecting } from './data-source-on';
import { SimulatorConnections } from './simulator-connections';

/** OAuth connections for a document system of a test's own, which checks no token: every one gets the same. */
export function hostileConnections(): SimulatorConnections {
  return new SimulatorConnections({ accessToken: async () => 'hostile-access-token' } as unknown as RunningSimulator);
}

/** A data source of `caller` on the document system at `url`, selecting `include`; its id. */
export function hostileDataSource(
  app: INestApplication,
  connections: SimulatorConnections,
  caller: TestCaller,
  url: string,
  include: string[],
  password = 'p',
): Promise<string> {
  return dataSourceSelecting(app, { url } as RunningSimulator, caller, {
    login: { username: 'u', password },
    connectionId: connections.connect(caller),
    include,
  });
}
