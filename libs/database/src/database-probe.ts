import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isInfrastructureError } from '@app/errors';

/** Whether PostgreSQL answers right now: tells an outage of the database from another service's failure. */
@Injectable()
export class DatabaseProbe {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async isAway(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return false;
    } catch (error) {
      return isInfrastructureError(error);
    }
  }
}
