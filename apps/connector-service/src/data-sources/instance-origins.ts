import { Injectable } from '@nestjs/common';
import { Transactions } from '@app/database';
import { DataSourceException } from './data-source.exception';
import { DataSourcesRepository } from './data-sources.repository';

/** Records, on a change by a data source's creator or an admin, the instance origin its tokens may go to. */
@Injectable()
export class InstanceOrigins {
  constructor(
    private readonly repository: DataSourcesRepository,
    private readonly transactions: Transactions,
  ) {}

  /** The origin its credential points at now, recorded; returned (404 when the data source went meanwhile). */
  async record(dataSourceId: string): Promise<string> {
    const origin = await this.transactions.run((transaction) =>
      this.repository.recordInstanceOrigin(transaction, dataSourceId),
    );
    if (origin === null) throw DataSourceException.notFound();
    return origin;
  }
}
