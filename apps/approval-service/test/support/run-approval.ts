/** The approval-service in a child process of a test (startChildApp), so the test can kill it mid-work. */
import { Test } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { runAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';

runAsChild(async (env, role) => {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot({ role, env })] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  // Nest's loggers write through the app's pino logger, at the env's LOG_LEVEL (silent unless a test asks).
  app.useLogger(app.get(Logger));
  await app.init();
});
