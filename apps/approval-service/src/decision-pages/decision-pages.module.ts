import { Module } from '@nestjs/common';
import { CallbacksModule } from '../callbacks/callbacks.module';
import { DecisionPageLinks } from './decision-page-links';
import { DecisionPageRepository } from './decision-page.repository';
import { DecisionPagesController } from './decision-pages.controller';
import { DecisionPagesService } from './decision-pages.service';

/** The page a person decides on, reached by the signed link every webhook and approval carries. */
@Module({
  imports: [CallbacksModule],
  controllers: [DecisionPagesController],
  providers: [DecisionPageLinks, DecisionPageRepository, DecisionPagesService],
  exports: [DecisionPageLinks],
})
export class DecisionPagesModule {}
