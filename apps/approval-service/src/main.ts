import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { StartUpQuietLogger } from '@app/logging';
import { servesApi, validateEnv } from '@app/config';
import { configureHttpApp, fastifyAdapter, listen } from '@app/http';
import { ApprovalEnv } from './approval-env';
import { AppModule } from './app.module';
import { HTTP_APP_OPTIONS } from './http-app.options';

async function bootstrap(): Promise<void> {
  const env = validateEnv(ApprovalEnv, process.env);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({ role: env.PROCESS_ROLE }),
    fastifyAdapter(env),
    { bodyParser: false, bufferLogs: true },
  );
  app.useLogger(new StartUpQuietLogger(app.get(Logger)));
  configureHttpApp(app, HTTP_APP_OPTIONS);
  if (servesApi(env.PROCESS_ROLE)) await listen(app, env);
  else {
    await app.init();
    app.get(Logger).log('Queue workers started (no HTTP server in this process)');
  }
}

bootstrap().catch((error: Error) => {
  process.stderr.write(`approval-service failed to start: ${error.message}\n`);
  process.exit(1);
});
