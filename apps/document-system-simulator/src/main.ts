import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { StartUpQuietLogger } from '@app/logging';
import { validateEnv } from '@app/config';
import { configureHttpApp, listen } from '@app/http';
import { AppModule } from './app.module';
import { SimulatorEnv } from './simulator-env';

async function bootstrap(): Promise<void> {
  const env = validateEnv(SimulatorEnv, process.env);
  const app = await NestFactory.create(AppModule.forRoot(), { bodyParser: false, bufferLogs: true });
  app.useLogger(new StartUpQuietLogger(app.get(Logger)));
  configureHttpApp(app, {
    title: 'Document-system simulator',
    description: 'OAuth host and document API of a construction document system, for development, tests and demos.',
  });
  await listen(app, env);
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`document-system-simulator failed to start: ${error.message}\n`);
  process.exit(1);
});
