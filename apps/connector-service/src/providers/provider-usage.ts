import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** How many data sources depend on a provider (through their users' connections). */
export abstract class ProviderUsage {
  abstract countDataSourcesUsing(providerId: string): Promise<number>;
}

@Injectable()
export class DataSourceProviderUsage extends ProviderUsage {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async countDataSourcesUsing(providerId: string): Promise<number> {
    const [{ count }] = await this.db.query(
      `SELECT count(*)::int AS count FROM connector.data_sources ds
       JOIN connector.oauth_connections c ON c.id = ds."connectionId"
       WHERE c."providerId" = $1`,
      [providerId],
    );
    return count;
  }
}
