import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { configureHttpApp } from '@app/http';
import { unsummarizedOperations } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('document-system simulator OpenAPI document', () => {
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

  it('says in a summary what every operation is for', async () => {
    const spec = await request(app.getHttpServer()).get('/docs/openapi.json').expect(200);
    expect(Object.keys(spec.body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/session', '/api/v1/workgroups', '/admin/reset', '/admin/oauth/clients']),
    );
    expect(unsummarizedOperations(spec.body)).toEqual([]);
  });
});
