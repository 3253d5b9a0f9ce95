import { Controller, Get, INestApplication } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AllExceptionsFilter } from './all-exceptions.filter';
import { DomainException, RetryLaterException } from './domain.exception';

@Controller()
class RefusingController {
  @Get('later')
  later(): never {
    throw new RetryLaterException(429, 'TOO_MANY_THINGS', 'Too many things at once; try again shortly', 3);
  }

  @Get('never')
  never(): never {
    throw new DomainException(409, 'IN_THE_WAY', 'Something is in the way');
  }
}

describe.each(['express', 'fastify'])(`${AllExceptionsFilter.name} on %s`, (adapter) => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [RefusingController] }).compile();
    app =
      adapter === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AllExceptionsFilter());
    await app.init();
    if (adapter === 'fastify') await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it("answers a refusal to retry later with its status, the contract's body and Retry-After", async () => {
    const res = await request(app.getHttpServer()).get('/later').expect(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      code: 'TOO_MANY_THINGS',
      message: 'Too many things at once; try again shortly',
      details: [],
    });
  });

  it('adds no Retry-After to other refusals', async () => {
    const res = await request(app.getHttpServer()).get('/never').expect(409);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body.code).toBe('IN_THE_WAY');
  });
});
