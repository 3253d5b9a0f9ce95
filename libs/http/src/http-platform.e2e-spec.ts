import { Body, Controller, Get, HttpCode, INestApplication, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsString, MaxLength } from 'class-validator';
import { Logger } from 'nestjs-pino';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { AuthModule, CurrentPrincipal, ownedByTenant, Principal, Public, RequireAnyRole } from '@app/auth';
import { BaseEnv, validatedConfig } from '@app/config';
import { LoggingModule } from '@app/logging';
import { testCaller, testEnv } from '@app/testing';
import { configureHttpApp } from './configure-http-app';
import { fastifyAdapter } from './fastify-http';

class NoteDto {
  @IsString()
  @MaxLength(2_000_000)
  text: string;
}

const notes = new Map<string, { tenantId: string; text: string }>();

@Controller('probe')
class ProbeController {
  @Public()
  @Get('public')
  open() {
    return { ok: true };
  }

  @Get('me')
  me(@CurrentPrincipal() principal: Principal) {
    return principal;
  }

  @RequireAnyRole('admin', 'oauth-connectors:manage')
  @Post('notes/:id')
  write(@Param('id') id: string, @Body() body: NoteDto, @CurrentPrincipal() principal: Principal) {
    notes.set(id, { tenantId: principal.tenantId, text: body.text });
    return { id };
  }

  @Get('notes/:id')
  read(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    return ownedByTenant(notes.get(id), principal, 'Note');
  }

  @Public()
  @Get('echo/:id')
  echo(@Param('id') id: string) {
    return { id };
  }

  @Public()
  @Post('touch')
  @HttpCode(200)
  touch(@Body() body: unknown) {
    return { body: body ?? null };
  }

  @Public()
  @Get('boom')
  boom() {
    throw new Error('relation "secret_table" does not exist at /srv/app.js:12');
  }
}

describe.each(['express', 'fastify'])('HTTP platform on %s (auth, errors, limits, logs)', (adapter) => {
  let app: INestApplication;
  const logs = new PassThrough();
  const logLines: string[] = [];
  logs.on('data', (chunk: Buffer) => logLines.push(chunk.toString()));

  beforeAll(async () => {
    @Module({
      imports: [
        validatedConfig(BaseEnv, testEnv({ LOG_LEVEL: 'info' })),
        LoggingModule.forRoot('probe', logs),
        AuthModule,
      ],
      controllers: [ProbeController],
    })
    class ProbeModule {}
    const options = { bodyParser: false, logger: false, abortOnError: false } as const;
    app =
      adapter === 'fastify'
        ? await NestFactory.create(ProbeModule, fastifyAdapter({ TRUST_PROXY: '' }), options)
        : await NestFactory.create(ProbeModule, options);
    app.useLogger(app.get(Logger));
    configureHttpApp(app, { title: 'probe', description: 'probe' });
    await app.init();
    if (adapter === 'fastify') await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(() => app.close());

  const errorBody = (status: number, code: string) =>
    expect.objectContaining({
      statusCode: status,
      code,
      error: expect.any(String),
      message: expect.any(String),
      details: expect.any(Array),
    });

  it('answers 401 with the error body without a token, with a bad token and with an expired one', async () => {
    const caller = await testCaller();
    const { signPlatformToken } = await import('@app/auth');
    const expired = await signPlatformToken(
      String(testEnv().AUTH_JWT_SECRET),
      caller,
      Math.floor(Date.now() / 1000) - 10,
    );
    for (const headers of [
      {},
      { Authorization: 'Bearer not-a-jwt' },
      { Authorization: `Bearer ${expired}` },
      { Authorization: caller.token },
    ]) {
      const res = await request(app.getHttpServer()).get('/probe/me').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(errorBody(401, 'UNAUTHENTICATED'));
    }
  });

  it('resolves the principal from sub, tenant and roles', async () => {
    const caller = await testCaller({ roles: ['admin'] });
    const res = await request(app.getHttpServer()).get('/probe/me').set(caller.auth);
    expect(res.body).toEqual({ userId: caller.userId, tenantId: caller.tenantId, roles: ['admin'] });
  });

  it('answers 403 to a valid token without the role, and accepts either role', async () => {
    const plain = await testCaller({ roles: ['viewer'] });
    const res = await request(app.getHttpServer()).post('/probe/notes/n1').set(plain.auth).send({ text: 'x' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(errorBody(403, 'FORBIDDEN'));
    const manager = await testCaller({ roles: ['oauth-connectors:manage'] });
    await request(app.getHttpServer()).post('/probe/notes/n1').set(manager.auth).send({ text: 'x' }).expect(201);
  });

  it("answers 404, never 403, for another tenant's resource", async () => {
    const owner = await testCaller({ roles: ['admin'] });
    await request(app.getHttpServer()).post('/probe/notes/n2').set(owner.auth).send({ text: 'mine' }).expect(201);
    await request(app.getHttpServer()).get('/probe/notes/n2').set(owner.auth).expect(200);
    const stranger = await testCaller({ roles: ['admin'] });
    const res = await request(app.getHttpServer()).get('/probe/notes/n2').set(stranger.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody(404, 'NOT_FOUND'));
  });

  it('refuses unknown keys and wrong types with field details', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const res = await request(app.getHttpServer())
      .post('/probe/notes/n3')
      .set(admin.auth)
      .send({ text: 5, extra: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(400, 'VALIDATION_FAILED'));
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'text']);
  });

  it('refuses prototype keys and U+0000 with 400 VALIDATION_FAILED naming the field', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    for (const [text, field] of [
      ['{"text":"x","constructor":{"prototype":{}}}', 'constructor'],
      ['{"__proto__":{"text":"x"},"text":"x"}', '__proto__'],
      ['{"text":"a\\u0000b"}', 'text'],
    ]) {
      const res = await request(app.getHttpServer())
        .post('/probe/notes/n6')
        .set(admin.auth)
        .set('Content-Type', 'application/json')
        .send(text);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody(400, 'VALIDATION_FAILED'));
      expect(res.body.details).toEqual([expect.objectContaining({ field })]);
    }
  });

  it('answers 401 to a token that never expires', async () => {
    const caller = await testCaller();
    const { SignJWT } = await import('jose');
    const endless = await new SignJWT({ tenant: caller.tenantId, roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(caller.userId)
      .sign(new TextEncoder().encode(String(testEnv().AUTH_JWT_SECRET)));
    await request(app.getHttpServer())
      .get('/probe/me')
      .set({ Authorization: `Bearer ${endless}` })
      .expect(401);
  });

  it('answers 400 to malformed JSON and 413 to a body over 1 MiB', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const malformed = await request(app.getHttpServer())
      .post('/probe/notes/n4')
      .set(admin.auth)
      .set('Content-Type', 'application/json')
      .send('{"text": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(errorBody(400, 'MALFORMED_JSON'));
    const big = await request(app.getHttpServer())
      .post('/probe/notes/n5')
      .set(admin.auth)
      .send({ text: 'x'.repeat(1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual(errorBody(413, 'PAYLOAD_TOO_LARGE'));
    expect(big.body.message).toBe('Request body is larger than 1 MiB');
  });

  it('decodes JSON as body-parser does: a BOM, a stray byte, gzip; other charsets 415, blank 400', async () => {
    const post = (body: Buffer | string, type = 'application/json', headers: Record<string, string> = {}) =>
      postBytes(app, '/probe/touch', { 'Content-Type': type, ...headers }, Buffer.from(body));
    expect(await post('\uFEFF{"a":1}')).toEqual({ status: 200, body: { body: { a: 1 } } });
    expect(await post(Buffer.from('{"a":"caf\xe9"}', 'latin1'))).toEqual({
      status: 200,
      body: { body: { a: 'caf\uFFFD' } },
    });
    expect(await post(gzipSync('{"a":2}'), undefined, { 'Content-Encoding': 'gzip' })).toEqual({
      status: 200,
      body: { body: { a: 2 } },
    });
    const bomb = await post(gzipSync(`{"a":"${'x'.repeat(2 * 1024 * 1024)}"}`), undefined, {
      'Content-Encoding': 'gzip',
    });
    expect(bomb).toEqual({ status: 413, body: errorBody(413, 'PAYLOAD_TOO_LARGE') });
    expect(await post('{"a":1}', 'application/json; charset=latin1')).toEqual({
      status: 415,
      body: errorBody(415, 'UNSUPPORTED_MEDIA_TYPE'),
    });
    expect(await post('   ')).toEqual({ status: 400, body: errorBody(400, 'MALFORMED_JSON') });
    expect(await post('a=caf%E9', 'application/x-www-form-urlencoded; charset=iso-8859-1')).toEqual({
      status: 200,
      body: { body: { a: 'café' } },
    });
  });

  it('answers 400 BAD_REQUEST to a body that is not the gzip or deflate its Content-Encoding says', async () => {
    const json = Buffer.from('{"a":1}');
    for (const [encoding, bytes] of [
      ['gzip', Buffer.from('this is not gzip')],
      ['gzip', gzipSync(json).subarray(0, 12)],
      ['gzip', Buffer.alloc(0)],
      ['deflate', Buffer.from('this is not deflate')],
    ] as const) {
      const headers = { 'Content-Type': 'application/json', 'Content-Encoding': encoding };
      const res = await postBytes(app, '/probe/touch', headers, bytes);
      expect({ encoding, ...res }).toEqual({ encoding, status: 400, body: errorBody(400, 'BAD_REQUEST') });
      expect((res.body as { message: string }).message).toBe('Request body could not be read');
    }
  });

  it('refuses a form of more than 1,000 fields with 413 and says why', async () => {
    const fields = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&');
    const res = await postBytes(
      app,
      '/probe/touch',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      Buffer.from(fields),
    );
    expect(res).toEqual({ status: 413, body: errorBody(413, 'PAYLOAD_TOO_LARGE') });
    expect((res.body as { message: string }).message).toBe('Request body has more than 1,000 form fields');
  });

  it("answers a malformed URL and a request Node's parser refuses with the contract's body", async () => {
    const res = await request(app.getHttpServer()).get('/probe/echo/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errorBody(400, 'BAD_REQUEST'));
    const raw = await rawExchange(app, 'POST /probe/touch HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.split('\r\n\r\n')[1])).toEqual(errorBody(400, 'BAD_REQUEST'));
  });

  it("answers headers too large for Node's parser with 431 and the contract's body", async () => {
    const raw = await rawExchange(app, `GET /probe/public HTTP/1.1\r\nHost: x\r\nX-Pad: ${'x'.repeat(20_000)}\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(raw.split('\r\n\r\n')[1])).toEqual(errorBody(431, 'REQUEST_HEADERS_TOO_LARGE'));
  });

  it('routes a path whatever its case, and keeps the case of its parameters', async () => {
    await request(app.getHttpServer()).get('/PROBE/Public').expect(200, { ok: true });
    await request(app.getHttpServer()).get('/Probe/Echo/AbC').expect(200, { id: 'AbC' });
  });

  it('reads bodies as Express does: empty JSON as {}, other types refused unless empty, JSON only as an object or array', async () => {
    const http = () => request(app.getHttpServer()).post('/probe/touch');
    expect((await http().set('Content-Type', 'application/json').expect(200)).body).toEqual({ body: {} });
    expect((await http().set('Content-Type', 'text/plain').expect(200)).body).toEqual({ body: null });
    for (const type of ['text/plain', 'application/octet-stream']) {
      // fetch sends a string body as text/plain: taken as no body, a PATCH would answer 200 having changed nothing.
      const unread = await http().set('Content-Type', type).send('{"text":"x"}');
      expect({ status: unread.status, body: unread.body }).toEqual({
        status: 415,
        body: errorBody(415, 'UNSUPPORTED_MEDIA_TYPE'),
      });
    }
    expect((await http().type('form').send('a=1&a=2&b=x').expect(200)).body).toEqual({
      body: { a: ['1', '2'], b: 'x' },
    });
    if (adapter === 'fastify') {
      // Fastify reads the body it refuses (Express leaves it unread), so the limit holds there too.
      const tooLarge = await http()
        .set('Content-Type', 'text/plain')
        .send('x'.repeat(1024 * 1024 + 1));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body).toEqual(errorBody(413, 'PAYLOAD_TOO_LARGE'));
    }
    for (const scalar of ['"text"', '12', 'null']) {
      const res = await http().set('Content-Type', 'application/json').send(scalar);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody(400, 'MALFORMED_JSON'));
    }
  });

  it('takes a path with a trailing slash as the path', async () => {
    await request(app.getHttpServer()).get('/probe/public/').expect(200, { ok: true });
  });

  it('passes a long path parameter on (a decision page token with a long key id)', async () => {
    const token = `${'a'.repeat(36)}.${'k'.repeat(64)}.${'m'.repeat(43)}`;
    await request(app.getHttpServer()).get(`/probe/echo/${token}`).expect(200, { id: token });
  });

  it('answers 404 with the error body for an unknown route', async () => {
    const res = await request(app.getHttpServer()).get('/nowhere');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody(404, 'NOT_FOUND'));
  });

  it('hides unexpected errors behind a 500 with an error id that is also logged', async () => {
    const res = await request(app.getHttpServer()).get('/probe/boom');
    expect(res.status).toBe(500);
    expect(res.body).toEqual(errorBody(500, 'INTERNAL_ERROR'));
    expect(JSON.stringify(res.body)).not.toMatch(/secret_table|app\.js/);
    expect(logLines.join('')).toContain(res.body.errorId);
  });

  it('logs structured JSON with request ids and never the bearer token', async () => {
    const caller = await testCaller();
    await request(app.getHttpServer()).get('/probe/me').set(caller.auth).set('x-request-id', 'req-123').expect(200);
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.req?.id === 'req-123');
    expect(line).toMatchObject({ service: 'probe', req: { method: 'GET', path: '/probe/me' } });
    expect(logLines.join('')).not.toContain(caller.token);
  });
});

/** The app's port on loopback, listening from the first call. */
async function portOf(app: INestApplication): Promise<number> {
  const server = app.getHttpServer();
  if (!server.listening) await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return (server.address() as { port: number }).port;
}

/** A POST of these very bytes (supertest turns a Buffer into JSON of its bytes under a JSON type). */
async function postBytes(
  app: INestApplication,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${await portOf(app)}${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** What a server answers to bytes written as they are (supertest would not send a malformed request). */
async function rawExchange(app: INestApplication, bytes: string): Promise<string> {
  const port = await portOf(app);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(5000, () => socket.destroy());
  });
}
