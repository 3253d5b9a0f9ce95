import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import Bull, { Queue } from 'bull';
import { BaseEnv } from '@app/config';
import { isCluster, QueueConnection, redisConnectionOf } from '@app/redis';

/** The app's Bull connection; on a cluster, it closes the clients it made once every queue has closed. */
@Injectable()
export class AppQueueConnection extends QueueConnection implements OnApplicationShutdown {
  private readonly cluster: boolean;

  constructor(
    env: BaseEnv,
    private readonly discovery: DiscoveryService,
  ) {
    const connection = redisConnectionOf(env);
    super(connection);
    this.cluster = isCluster(connection);
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.cluster) return;
    // Bull's close() is memoized: these are the same closes @nestjs/bull starts in this phase.
    const queues = new Set(
      this.discovery
        .getProviders()
        .map((wrapper) => wrapper.instance as unknown)
        .filter((instance): instance is Queue => instance instanceof Bull),
    );
    await Promise.all([...queues].map((queue) => queue.close()));
    this.disconnect();
  }
}

@Module({ imports: [DiscoveryModule], providers: [AppQueueConnection], exports: [AppQueueConnection] })
export class QueueConnectionModule {}
