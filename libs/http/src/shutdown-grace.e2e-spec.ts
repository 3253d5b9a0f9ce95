import {
  Controller,
  Get,
  INestApplication,
  Injectable,
  Module,
  OnModuleDestroy,
  ServiceUnavailableException,
  StreamableFile,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { connect, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppEnv, validatedConfig } from '@app/config';
import { testEnv } from '@app/testing';
import { configureHttpApp } from './configure-http-app';
import { fastifyAdapter } from './fastify-http';

const GRACE_MS = 1_500;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
let arrived: () => void = () => undefined;

/** Something a module closes in its destroy hook (a queue, an agent, a pool). */
@Injectable()
class ClosingResource implements OnModuleDestroy {
  open = true;

  onModuleDestroy(): void {
    this.open = false;
  }
}

@Controller('probe')
class ProbeController {
  constructor(private readonly resource: ClosingResource) {}

  /** 64 MiB, written as fast as the client reads. */
  @Get('download')
  download() {
    return new StreamableFile(Readable.from(Array.from({ length: 1024 }, () => CHUNK)));
  }

  @Get('slow')
  async slow() {
    arrived();
    await sleep(500);
    return { ok: true };
  }

  @Get('slow-then-resource')
  async slowThenResource() {
    arrived();
    await sleep(500);
    if (!this.resource.open) throw new ServiceUnavailableException('closed under the request');
    return { ok: true };
  }
}

describe.each(['express', 'fastify'])('An app on %s shutting down (SIGTERM)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let socket: Socket | undefined;

  beforeEach(async () => {
    @Module({
      imports: [validatedConfig(AppEnv, testEnv({ SHUTDOWN_GRACE_MS: GRACE_MS }))],
      controllers: [ProbeController],
      providers: [ClosingResource],
    })
    class ProbeModule {}
    const options = { bodyParser: false, logger: false, abortOnError: false } as const;
    app =
      adapter === 'fastify'
        ? await NestFactory.create(ProbeModule, fastifyAdapter({ TRUST_PROXY: '' }), options)
        : await NestFactory.create(ProbeModule, options);
    configureHttpApp(app, { title: 'probe', description: 'test' });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterEach(async () => {
    socket?.destroy();
    await app.close().catch(() => undefined);
  });

  it('ends within SHUTDOWN_GRACE_MS though a client stopped reading a download (a deploy is not held)', async () => {
    socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.write('GET /probe/download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const head = await new Promise<string>((resolve) =>
      socket!.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 15))),
    );
    expect(head).toBe('HTTP/1.1 200 OK');
    socket.pause();

    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS - 50);
    expect(Date.now() - started).toBeLessThan(GRACE_MS + 2_000);
  });

  it('answers a request in flight when the shutdown starts, and closes as soon as it is answered', async () => {
    const came = new Promise<void>((resolve) => (arrived = resolve));
    const answer = fetch(`${url}/probe/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await came;

    const started = Date.now();
    await app.close();
    expect(await answer).toEqual({ status: 200, body: { ok: true } });
    expect(Date.now() - started).toBeLessThan(GRACE_MS);
  });

  it("runs the modules' destroy hooks only once the requests in flight are answered", async () => {
    const came = new Promise<void>((resolve) => (arrived = resolve));
    const answer = fetch(`${url}/probe/slow-then-resource`).then(async (res) => ({
      status: res.status,
      body: await res.json(),
    }));
    await came;

    await app.close();
    expect(await answer).toEqual({ status: 200, body: { ok: true } });
  });
});
