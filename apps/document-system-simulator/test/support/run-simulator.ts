/** The simulator in a child process (startChildApp), listening on the env's PORT: for tests that kill it, and benchmarks. */
import { NestFactory } from '@nestjs/core';
import { configureHttpApp } from '@app/http';
import { runAsChild } from '@app/testing';
import { AppModule } from '../../src/app.module';

runAsChild(async (env) => {
  const app = await NestFactory.create(AppModule.forRoot({ env }), { bodyParser: false, logger: false });
  configureHttpApp(app, { title: 'simulator', description: 'simulator' });
  await app.listen(Number(env.PORT), '127.0.0.1');
});
