import type Bull from 'bull';
import request from 'supertest';
import { ApprovalRequestJob, SharedQueue, SyncCompletedEvent } from '@app/contracts/payloads';
import { ApprovalRuntimeClient } from '@app/agent-runtime';
import { connectRedis, deleteKeys, QueueConnection, redisConnectionOf } from '@app/redis';
import {
  eventually,
  hasRedisServer,
  HttpPeer,
  RunningRedisCluster,
  RunningSimulator,
  startRedisCluster,
  testCaller,
} from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from '../../approval-service/test/support/approval-app';
import { ConnectionTokens } from '../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from './support/connector-app';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { dataSourceOn } from './support/data-source-on';
import { SimulatorConnections } from './support/simulator-connections';
import { syncToEnd, waitForExtraction } from './support/sync-helpers';

const onCluster = hasRedisServer() ? describe : describe.skip;
if (!hasRedisServer()) process.stdout.write('redis-cluster e2e skipped: no redis-server on PATH\n');

onCluster('Both services on a three-node Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: RunningRedisCluster;
  let redis: { REDIS_URL: string; REDIS_CLUSTER_NODES: string };
  let approvals: ApprovalTestApp;
  let connector: ConnectorTestApp;
  let sim: RunningSimulator;
  let receiver: HttpPeer;
  let runtime: ApprovalRuntimeClient;
  let events: QueueConnection;
  let connections: SimulatorConnections;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    redis = { REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`, REDIS_CLUSTER_NODES: cluster.nodes };
    sim = await startSimulator();
    // One callback per client and minute: a second one proves the limit is counted in the cluster.
    approvals = await startApprovalApp({ ...redis, CALLBACK_RATE_LIMIT_PER_MINUTE: 1 });
    receiver = await new HttpPeer(async (req, res) => {
      res.writeHead(200).end();
      const { callbackId, callbackToken } = JSON.parse(req.body);
      await request(approvals.app.getHttpServer())
        .post('/v1/AgentExecutionWebhookApproval/callback')
        .send({ callbackId, callbackToken, status: 'Approved', comment: 'on the cluster' })
        .expect(200);
    }).start();
    runtime = new ApprovalRuntimeClient(redis.REDIS_URL, {
      prefix: String(approvals.env.QUEUE_PREFIX),
      clusterNodes: redis.REDIS_CLUSTER_NODES,
    });
    connections = new SimulatorConnections(sim);
    connector = await startConnectorApp({ env: redis, overrides: [[ConnectionTokens, connections]] });
    events = new QueueConnection({ url: redis.REDIS_URL, clusterNodes: redis.REDIS_CLUSTER_NODES });
  }, 60000);

  afterAll(async () => {
    await runtime?.close();
    events?.disconnect();
    await receiver?.stop();
    await approvals?.close();
    await connector?.close();
    await sim?.close();
    await cluster?.stop();
  });

  it('reports both services ready, with Redis up', async () => {
    for (const app of [approvals.app, connector.app]) {
      const ready = await eventually(async () => {
        const res = await request(app.getHttpServer()).get('/health/ready');
        return res.status === 200 && res;
      }, 10000);
      expect(ready.body).toMatchObject({ status: 'ok', info: { redis: { status: 'up' } } });
    }
  });

  it('takes a runtime request from the queue, delivers the webhook, and the runtime reads the decision', async () => {
    const body = { ...approvalRequest(receiver.url), tenantId: 'tenant-cluster' } as ApprovalRequestJob;
    const decision = runtime.awaitDecision('tenant-cluster', body.executionId, body.stepId, 30000);
    await runtime.request(body);
    await expect(decision).resolves.toMatchObject({
      outcome: 'Approved',
      comment: 'on the cluster',
      executionId: body.executionId,
    });
    expect(receiver.received).toHaveLength(1);

    const { callbackId, callbackToken } = JSON.parse(receiver.received[0].body);
    const again = await request(approvals.app.getHttpServer())
      .post('/v1/AgentExecutionWebhookApproval/callback')
      .send({ callbackId, callbackToken, status: 'Denied' });
    expect(again.status).toBe(429);
    expect(again.body.code).toBe('RATE_LIMITED');
  });

  it('syncs a folder from the document system, extracts its text and publishes SyncCompleted', async () => {
    const admin = await testCaller({ roles: ['admin'] });
    const dataSourceId = await dataSourceOn(
      connector.app,
      sim,
      connections,
      admin,
      SEED_USERS.alice,
      '/Structural/Specifications',
    );
    const files = (
      await sim.admin.get('/files', { params: { under: await sim.folderId('/Structural/Specifications') } })
    ).data as unknown[];
    const run = await syncToEnd(connector.app, admin, dataSourceId, 30000);
    expect(run).toMatchObject({ status: 'Succeeded', error: null, counts: { added: files.length, failed: 0 } });
    expect(files.length).toBeGreaterThan(0);
    await waitForExtraction(connector.app, admin, dataSourceId, 30000);

    const queue: Bull.Queue<SyncCompletedEvent> = events.queue(
      SharedQueue.ConnectorEvents,
      String(connector.env.QUEUE_PREFIX),
    );
    try {
      const event = await eventually(async () => (await queue.getJob(`sync-completed:${run.id}`))?.data, 10000);
      expect(event).toMatchObject({ type: 'SyncCompleted', dataSourceId, syncRunId: run.id, status: 'Succeeded' });
    } finally {
      await queue.close();
    }
  });

  it('keeps each service under its {QUEUE_PREFIX} hash tag, so each queue lives in one slot', async () => {
    const keys = await cluster.keys();
    const approvalTag = `{${String(approvals.env.QUEUE_PREFIX)}}:`;
    const connectorTag = `{${String(connector.env.QUEUE_PREFIX)}}:`;
    expect(keys.filter((key) => !key.startsWith(approvalTag) && !key.startsWith(connectorTag))).toEqual([]);
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${escape(approvalTag)}${SharedQueue.ApprovalDecisions}:`)),
        expect.stringMatching(new RegExp(`^${escape(approvalTag)}callback-rate:`)),
        expect.stringMatching(new RegExp(`^${escape(connectorTag)}${SharedQueue.ConnectorEvents}:`)),
      ]),
    );
  });

  it('deletes keys by pattern on every node (SCAN walks one node at a time)', async () => {
    const scratch = `scratch-${String(connector.env.QUEUE_PREFIX)}`;
    const ours = (keys: string[]) => keys.filter((key) => key.startsWith(scratch));
    // Tags {b}, {c}, {a} hash to slots 3300, 7365, 15495: one in each third of the slots, one per node.
    const client = connectRedis(redisConnectionOf(redis));
    try {
      await Promise.all(
        ['a', 'b', 'c'].flatMap((tag) => [1, 2, 3, 4].map((i) => client.set(`${scratch}:{${tag}}${i}`, '1'))),
      );
    } finally {
      client.disconnect();
    }
    expect((await cluster.keysByNode()).filter((keys) => ours(keys).length)).toHaveLength(3);
    expect(await deleteKeys(redisConnectionOf(redis), `${scratch}:*`)).toBe(12);
    expect(ours(await cluster.keys())).toEqual([]);
  });

  it('reports not ready once the cluster has lost a node (its slots unserved)', async () => {
    await cluster.killNode(2);
    const notReady = await eventually(async () => {
      const res = await request(approvals.app.getHttpServer()).get('/health/ready');
      return res.status === 503 && res;
    }, 20000);
    expect(notReady.body).toMatchObject({ code: 'NOT_READY', message: expect.stringContaining('redis') });
    expect(notReady.body.details[0].error.redis).toMatchObject({ status: 'down' });
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
