import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions, MixedList } from 'typeorm';
import { BaseEnv } from '@app/config';
import { migrateWithLock } from './migrate';
import { DatabaseProbe } from './database-probe';
import { Transactions } from './transaction';

/** An entity or migration class. */
type Constructor = new (...args: never[]) => object;

export interface ServiceDatabaseOptions {
  /** The PostgreSQL schema this service owns; no other service writes to it. */
  schema: string;
  entities: MixedList<Constructor>;
  migrations: MixedList<Constructor>;
}

export function dataSourceOptions(url: string, options: ServiceDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    extra: { max: 20, connectionTimeoutMillis: 10000 },
    // Query errors reach the global filter, which logs them without parameters (they can hold ciphertexts).
    logging: false,
  };
}

@Module({})
export class DatabaseModule {
  static forService(options: ServiceDatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      // Like TypeORM's DataSource, the transaction runner is the app's infrastructure: every repository may use it.
      global: true,
      providers: [Transactions, DatabaseProbe],
      exports: [Transactions, DatabaseProbe],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [BaseEnv],
          useFactory: (env: BaseEnv) => dataSourceOptions(env.DATABASE_URL, options),
          // Migrations finish before any provider can touch the DataSource.
          dataSourceFactory: async (dsOptions) => {
            const dataSource = await new DataSource(dsOptions!).initialize();
            const url = (dsOptions as { url: string }).url;
            await migrateWithLock(dataSource, url, options.schema);
            return dataSource;
          },
        }),
      ],
    };
  }
}
