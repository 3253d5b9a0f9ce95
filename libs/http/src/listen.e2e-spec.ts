import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { listen } from './configure-http-app';
import { fastifyAdapter } from './fastify-http';

@Controller()
class PingController {
  @Get('ping')
  ping() {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

describe.each(['express', 'fastify'])('listen on %s', (adapter) => {
  let app: INestApplication;

  beforeEach(async () => {
    const options = { logger: false, abortOnError: false } as const;
    app =
      adapter === 'fastify'
        ? await NestFactory.create(PingModule, fastifyAdapter({ TRUST_PROXY: '' }), options)
        : await NestFactory.create(PingModule, options);
  });
  afterEach(() => app.close());

  const boundTo = () => (app.getHttpServer().address() as AddressInfo).address;

  it('listens on every interface when BIND_ADDRESS is unset (a container is reached from outside it)', async () => {
    await listen(app, { PORT: 0, BIND_ADDRESS: '' });
    expect(['::', '0.0.0.0']).toContain(boundTo());
  });

  it('listens on BIND_ADDRESS alone when it is set', async () => {
    await listen(app, { PORT: 0, BIND_ADDRESS: '127.0.0.1' });
    expect(boundTo()).toBe('127.0.0.1');
  });
});
