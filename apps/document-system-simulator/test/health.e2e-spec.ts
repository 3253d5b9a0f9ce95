import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { configureHttpApp } from '@app/http';
import { AppModule } from '../src/app.module';

describe('document-system-simulator health', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(AppModule.forRoot({ env: { LOG_LEVEL: 'silent' } }), {
      bodyParser: false,
      logger: false,
      abortOnError: false,
    });
    configureHttpApp(app, { title: 'Document-system simulator', description: 'test' });
    await app.init();
  });

  afterAll(() => app.close());

  it('is live and ready', async () => {
    await request(app.getHttpServer()).get('/health/live').expect(200);
    await request(app.getHttpServer()).get('/health/ready').expect(200);
  });
});
