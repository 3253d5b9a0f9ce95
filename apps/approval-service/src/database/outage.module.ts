import { Module } from '@nestjs/common';
import { OutageRider } from './outage-rider';

/** One OutageRider per process, so an outage is logged once however many features hold work through it. */
@Module({ providers: [OutageRider], exports: [OutageRider] })
export class OutageModule {}
