import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DataSourceEntity } from '../data-sources/data-source.entity';
import { CredentialUsage } from './credentials.service';

@Injectable()
export class DataSourceCredentialUsage extends CredentialUsage {
  constructor(@InjectRepository(DataSourceEntity) private readonly sources: Repository<DataSourceEntity>) {
    super();
  }

  countDataSourcesUsing(credentialId: string): Promise<number> {
    return this.sources.countBy({ credentialId });
  }
}
