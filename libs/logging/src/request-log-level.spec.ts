import { Controller, Get, HttpCode, INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { AppEnv, validatedConfig } from '@app/config';
import { LoggingModule } from './logging.module';

@Controller()
class ProbeController {
  @Get('health/live')
  live() {
    return { status: 'ok' };
  }

  @Get('v1/sync-runs/:id')
  run() {
    return { status: 'Running' };
  }

  @Get('v1/projects')
  projects() {
    return [];
  }

  @Post('v1/notes')
  @HttpCode(201)
  note() {
    return {};
  }

  @Get('v1/boom')
  boom() {
    throw new Error('boom');
  }
}

async function appLoggingAt(
  level: string,
  lines: Array<{ level: number; req?: { path: string }; res?: object }>,
): Promise<INestApplication> {
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ),
  );
  @Module({
    imports: [
      validatedConfig(AppEnv, { PORT: 0, PUBLIC_BASE_URL: 'http://localhost', LOG_LEVEL: level }),
      LoggingModule.forRoot('probe', sink),
    ],
    controllers: [ProbeController],
  })
  class ProbeModule {}
  const app = await NestFactory.create(ProbeModule, { logger: false, abortOnError: false });
  app.useLogger(app.get(Logger));
  await app.init();
  return app;
}

describe('request log levels', () => {
  const INFO = 30;
  const DEBUG = 20;

  it('logs health probes and the console’s polled reads only at debug; other requests at info, failures as errors', async () => {
    const lines: Array<{ level: number; req?: { path: string }; res?: object }> = [];
    const app = await appLoggingAt('info', lines);
    try {
      const http = request(app.getHttpServer());
      await http.get('/health/live').expect(200);
      await http.get('/v1/sync-runs/7f1c').expect(200);
      await http.get('/v1/projects').expect(200);
      await http.post('/v1/notes').expect(201);
      await http.get('/v1/boom').expect(500);
      await new Promise((resolve) => setImmediate(resolve));
      const logged = lines.filter((l) => l.req && l.res).map((l) => [l.req!.path, l.level]);
      expect(logged).toEqual([
        ['/v1/projects', INFO],
        ['/v1/notes', INFO],
        ['/v1/boom', 50],
      ]);
    } finally {
      await app.close();
    }
  });

  it('shows health probes at LOG_LEVEL=debug', async () => {
    const lines: Array<{ level: number; req?: { path: string }; res?: object }> = [];
    const app = await appLoggingAt('debug', lines);
    try {
      await request(app.getHttpServer()).get('/health/live').expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines.filter((l) => l.req && l.res).map((l) => [l.req!.path, l.level])).toEqual([['/health/live', DEBUG]]);
    } finally {
      await app.close();
    }
  });
});
