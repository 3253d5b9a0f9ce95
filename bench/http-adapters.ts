/**
 * `npm run bench:http-adapters`: what NestJS's HTTP adapter costs on the approval path, Express (what the
 * services run) against Fastify. One Nest app, the same in both: the approval-service's two inbound
 * requests of an approval (create, then the callback), their bodies checked by our validation pipe, no
 * database or queue. Each side runs in its own process under the same closed-loop load; the bench prints
 * its CPU per approval (both requests), alternating the sides in pairs (the machine is noisy), and the ratio.
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min, ValidateNested } from 'class-validator';
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { strictValidationPipe } from '@app/errors';

const N = Number(process.env.BENCH_N ?? 20_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const CONCURRENCY = 20;
type Side = 'express' | 'fastify';

class WebhookBody {
  @IsString() @MaxLength(2000) url!: string;
  @IsInt() @Min(1) timeoutSeconds!: number;
  @IsInt() @Min(0) maxRetryAttempts!: number;
  @IsOptional() @IsString() message?: string;
}

class ApprovalBody {
  @IsString() executionId!: string;
  @IsString() stepId!: string;
  @IsString() agentName!: string;
  @ValidateNested() @Type(() => WebhookBody) webhook!: WebhookBody;
}

class CallbackBody {
  @IsString() callbackId!: string;
  @IsString() callbackToken!: string;
  @IsIn(['Approved', 'Denied']) status!: string;
}

@Controller()
class ApprovalRoutes {
  @Post('v1/approvals')
  @HttpCode(201)
  create(@Body() body: ApprovalBody) {
    return { approvalId: body.executionId, status: 'Pending' };
  }

  @Post('v1/AgentExecutionWebhookApproval/callback')
  @HttpCode(200)
  callback(@Body() body: CallbackBody) {
    return { status: body.status };
  }
}

@Module({ controllers: [ApprovalRoutes] })
class RoutesModule {}

/** The child: serves the routes on `side`'s adapter, and measures its own CPU between 'start' and 'stop'. */
async function serve(side: Side): Promise<void> {
  const app =
    side === 'fastify'
      ? await NestFactory.create(RoutesModule, new FastifyAdapter(), { logger: false })
      : await NestFactory.create(RoutesModule, { logger: false });
  app.useGlobalPipes(strictValidationPipe());
  await app.listen(0, '127.0.0.1');
  const port = Number(new URL(await app.getUrl()).port);
  let since = process.cpuUsage();
  process.on('message', (message) => {
    if (message === 'start') since = process.cpuUsage();
    if (message === 'stop') {
      const used = process.cpuUsage(since);
      process.send!({ cpuMs: (used.user + used.system) / 1000 });
    }
  });
  process.send!({ port });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const approval = JSON.stringify({
  executionId: 'exec-1',
  stepId: 'approve-po',
  agentName: 'Procurement agent',
  webhook: { url: 'https://receiver.example/hook', timeoutSeconds: 5, maxRetryAttempts: 3, message: 'Approve?' },
});
const callback = JSON.stringify({ callbackId: 'cb-1', callbackToken: 't'.repeat(43), status: 'Approved' });

function post(port: number, path: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () =>
        (res.statusCode ?? 500) < 300 ? resolve() : reject(new Error(`${path}: ${res.statusCode}`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function approvals(port: number, count: number): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next++ < count) {
      await post(port, '/v1/approvals', approval);
      await post(port, '/v1/AgentExecutionWebhookApproval/callback', callback);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
}

/** One side in its own process: ms of its CPU per approval. */
async function measure(side: Side): Promise<number> {
  const child = fork(__filename, ['--serve', side], { execArgv: process.execArgv });
  const reply = <T>() => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)));
  try {
    const { port } = await reply<{ port: number }>();
    await approvals(port, WARMUP);
    child.send('start');
    await approvals(port, N);
    const stopped = reply<{ cpuMs: number }>();
    child.send('stop');
    return (await stopped).cpuMs / N;
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  console.log(`${N} approvals (create + callback) a side, ${CONCURRENCY} at a time, after ${WARMUP} to warm up`);
  const ratios: number[] = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    const order: Side[] = pair % 2 ? ['fastify', 'express'] : ['express', 'fastify'];
    const cpu = {} as Record<Side, number>;
    for (const side of order) cpu[side] = await measure(side);
    ratios.push(cpu.fastify / cpu.express);
    console.log(
      `pair ${pair + 1}: Express ${cpu.express.toFixed(3)} ms, Fastify ${cpu.fastify.toFixed(3)} ms of CPU per approval;` +
        ` Fastify / Express ${ratios[pair].toFixed(2)}`,
    );
  }
  console.log(`Fastify / Express, median of ${PAIRS}: ${ratios.sort((a, b) => a - b)[PAIRS >> 1].toFixed(2)}`);
}

const serving = process.argv.indexOf('--serve');
if (serving >= 0) void serve(process.argv[serving + 1] as Side);
else
  main().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
