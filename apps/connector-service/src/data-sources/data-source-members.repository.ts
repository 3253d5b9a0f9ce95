import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { managerOf, Transaction } from '@app/database';
import { DataSourceMemberEntity } from './data-source-member.entity';
import { failedWith, SqlState } from '../common/sql-state';

/** The users who may read a data source. */
@Injectable()
export class DataSourceMembersRepository {
  constructor(@InjectRepository(DataSourceMemberEntity) private readonly members: Repository<DataSourceMemberEntity>) {}

  async isMember(dataSourceId: string, userId: string): Promise<boolean> {
    return this.members.existsBy({ dataSourceId, userId });
  }

  list(dataSourceId: string): Promise<DataSourceMemberEntity[]> {
    return this.members.find({ where: { dataSourceId }, order: { createdAt: 'ASC' } });
  }

  /** Adds the member (kept as it was when already one) and returns it; null when the data source is gone. */
  async add(dataSourceId: string, userId: string, addedBy: string): Promise<DataSourceMemberEntity | null> {
    try {
      await this.members.upsert(
        { dataSourceId, userId, addedBy },
        { conflictPaths: ['dataSourceId', 'userId'], skipUpdateIfNoValuesChanged: true },
      );
    } catch (error) {
      if (failedWith(error, SqlState.ForeignKeyViolation)) return null;
      throw error;
    }
    return this.members.findOneBy({ dataSourceId, userId });
  }

  /** The creator of a new data source, in the transaction that creates it. */
  async addCreator(transaction: Transaction, dataSourceId: string, createdBy: string): Promise<void> {
    await managerOf(transaction).insert(DataSourceMemberEntity, {
      dataSourceId,
      userId: createdBy,
      addedBy: createdBy,
    });
  }

  async remove(dataSourceId: string, userId: string): Promise<void> {
    await this.members.delete({ dataSourceId, userId });
  }
}
