import { Injectable } from '@nestjs/common';
import { Principal } from '@app/auth';
import { DataSourceAccess } from '../data-source-access';
import { DataSourceMemberEntity } from '../data-source-member.entity';
import { DataSourceMembersRepository } from '../data-source-members.repository';
import { DataSourceException } from '../data-source.exception';

/** Who may read a data source: its members, listed by any reader, changed by those who manage it. */
@Injectable()
export class DataSourceMembersService {
  constructor(
    private readonly access: DataSourceAccess,
    private readonly members: DataSourceMembersRepository,
  ) {}

  async list(principal: Principal, id: string): Promise<DataSourceMemberEntity[]> {
    await this.access.readable(principal, id);
    return this.members.list(id);
  }

  async add(principal: Principal, id: string, userId: string): Promise<DataSourceMemberEntity> {
    await this.access.manageable(principal, id);
    const member = await this.members.add(id, userId, principal.userId);
    if (!member) throw DataSourceException.notFound(); // deleted meanwhile
    return member;
  }

  async remove(principal: Principal, id: string, userId: string): Promise<void> {
    const source = await this.access.manageable(principal, id);
    if (userId === source.createdBy) throw DataSourceException.creatorIsMember();
    await this.members.remove(id, userId);
  }
}
