import { Module } from '@nestjs/common';
import { DatabaseOutages } from './database-outages';
import { OutageRider } from './outage-rider';

/** One OutageRider per process, so an outage is logged once however many features hold work through it. */
@Module({ providers: [OutageRider, DatabaseOutages], exports: [OutageRider, DatabaseOutages] })
export class OutageModule {}
