import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { configureHttpApp } from '@app/http';
import { testEnv, undocumentedResponses, unsummarizedOperations } from '@app/testing';
import { AppModule } from '../src/app.module';

describe('connector-service OpenAPI document', () => {
  let app: INestApplication;

  beforeAll(async () => {
    app = await NestFactory.create(AppModule.forRoot({ role: 'all', env: testEnv() }), {
      bodyParser: false,
      logger: false,
      abortOnError: false,
    });
    configureHttpApp(app, { title: 'Connector service', description: 'test' });
    await app.init();
  });

  afterAll(() => app.close());

  it('declares, for every operation, the body of its success and of its errors', async () => {
    const spec = await request(app.getHttpServer()).get('/docs/openapi.json').expect(200);
    expect(Object.keys(spec.body.paths).length).toBeGreaterThan(20);
    expect(undocumentedResponses(spec.body)).toEqual([]);
  });

  it('says in a summary what every operation is for', async () => {
    const spec = await request(app.getHttpServer()).get('/docs/openapi.json').expect(200);
    expect(unsummarizedOperations(spec.body)).toEqual([]);
  });

  it('shows the views with their fields, the error body among them', async () => {
    const { schemas } = (await request(app.getHttpServer()).get('/docs/openapi.json').expect(200)).body.components;
    expect(Object.keys(schemas.SearchHitResponse.properties)).toEqual(
      expect.arrayContaining(['documentId', 'mimeType', 'snippet', 'textUrl', 'contentUrl']),
    );
    expect(schemas.DataSourceDetailResponse.required).toEqual(expect.arrayContaining(['pendingExtractions', 'id']));
    expect(schemas.ErrorResponse.required).toEqual(
      expect.arrayContaining(['statusCode', 'error', 'code', 'message', 'details']),
    );
  });
});
