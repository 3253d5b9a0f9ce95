import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Principal } from '@app/auth';
import { DataSourceManagers, DataSourceManagersRegistry } from '../credentials/data-source-managers';
import { DataSourceAccess } from './data-source-access';

/** Tells the credentials feature who may change a data source's own credential: whoever may manage the data source. */
@Injectable()
export class DataSourceCredentialManagers implements DataSourceManagers, OnModuleInit {
  constructor(
    private readonly registry: DataSourceManagersRegistry,
    private readonly access: DataSourceAccess,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  async assertMayManage(principal: Principal, dataSourceId: string): Promise<void> {
    await this.access.manageable(principal, dataSourceId);
  }
}
