import { Module } from '@nestjs/common';
import { ProvidersModule } from '../providers/providers.module';
import { ConsoleFiles } from './console-files';
import { ConsoleController } from './console.controller';

/** The web console: its static files under /console, its configuration, and development sign-in. */
@Module({
  imports: [ProvidersModule],
  controllers: [ConsoleController],
  providers: [ConsoleFiles],
})
export class ConsoleModule {}
