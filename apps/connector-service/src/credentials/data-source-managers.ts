import { Injectable } from '@nestjs/common';
import { PortRegistry } from '../common/port-registry';
import type { Principal } from '@app/auth';

/** Who may manage a data source, as the data sources feature decides it. */
export interface DataSourceManagers {
  /** Passes for its creator or a tenant admin; 403 DATA_SOURCE_MANAGE_FORBIDDEN for its other members, else 404. */
  assertMayManage(principal: Principal, dataSourceId: string): Promise<void>;
}

/**
 * Where the data sources feature registers its DataSourceManagers, so that changing a data source's own
 * credential takes the right to manage that data source, without credentials depending on data sources
 * (which depend on them).
 */
@Injectable()
export class DataSourceManagersRegistry extends PortRegistry<DataSourceManagers> {
  constructor() {
    super('DataSourceManagers: the data sources module is not loaded');
  }
}
