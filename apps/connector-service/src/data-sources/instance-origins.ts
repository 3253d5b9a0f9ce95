import { Injectable } from '@nestjs/common';
import { Transactions } from '@app/database';
import { DataSourcesRepository } from './data-sources.repository';

/** Records, on a change by a data source's creator or an admin, the instance origin its tokens may go to. */
@Injectable()
export class InstanceOrigins {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
  ) {}

  /** The origin its credential points at now, recorded; returned. */
  record(dataSourceId: string): Promise<string> {
    return this.transactions.run((transaction) => this.repository.recordInstanceOrigin(transaction, dataSourceId));
  }
}
