import { HttpPeer, isolatedDatabase, OwnRedis, PeerHandler, startOwnRedis } from '@app/testing';
import { ApprovalTestApp, startApprovalApp } from './approval-app';

/** The approval-service on a Redis of its own (to stop and start) and a database of its own, and a receiver. */
export interface OnOwnRedis {
  redis: OwnRedis;
  sut: ApprovalTestApp;
  receiver: HttpPeer;
  close(): Promise<void>;
}

/**
 * Starts one. A database of its own too: the sweeps of a restart act on every approval they find, and another
 * file's would be in a shared one.
 */
export async function onOwnRedis(
  env: Record<string, unknown> = {},
  { keepsData = true, answer }: { keepsData?: boolean; answer?: PeerHandler } = {},
): Promise<OnOwnRedis> {
  const redis = await startOwnRedis({ keepsData });
  let sut: ApprovalTestApp | undefined;
  let receiver: HttpPeer | undefined;
  const close = async () => {
    await receiver?.stop();
    await sut?.close().catch(() => undefined);
    await redis.destroy();
  };
  try {
    sut = await startApprovalApp({ REDIS_URL: redis.url, DATABASE_URL: await isolatedDatabase(), ...env });
    receiver = await new HttpPeer(answer).start();
    return { redis, sut, receiver, close };
  } catch (error) {
    await close();
    throw error;
  }
}
