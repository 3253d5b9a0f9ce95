import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { rng } from '../store/generated-content';
import { SimulatorStore } from '../store/simulator-store';

/** Counts every document-API call and applies the configured faults: latency, 429, 503, dropped connections. */
@Injectable()
export class FaultInjectionMiddleware implements NestMiddleware {
  private random = rng(42);

  constructor(private readonly store: SimulatorStore) {}

  /** Restarts the fault sequence, so a test run sees the same faults every time. */
  reseed(seed: number): void {
    this.random = rng(seed);
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    // originalUrl: under a middleware's mount point req.path is only the rest of the path.
    const route = `${req.method} ${req.originalUrl.split('?')[0].replace(/\/(folders|files)\/[^/]+/, '/$1/:id')}`;
    const { stats, faults } = this.store;
    stats.calls[route] = (stats.calls[route] ?? 0) + 1;
    const nodeId = /\/(?:folders|files)\/([^/?]+)/.exec(req.originalUrl)?.[1];
    if (faults.latencyMs > 0 && this.store.isSlow(nodeId) && !(await answeredAfter(res, faults.latencyMs))) return;
    const draw = this.random();
    if (draw < faults.dropRate) {
      stats.faults.dropped++;
      req.socket.destroy();
      return;
    }
    if (draw < faults.dropRate + faults.rate429) {
      stats.faults['429']++;
      res.status(429).setHeader('Retry-After', String(faults.retryAfterSeconds));
      res.json({ error: 'rate_limited' });
      return;
    }
    if (draw < faults.dropRate + faults.rate429 + faults.rate5xx) {
      stats.faults['5xx']++;
      res.status(503).json({ error: 'unavailable' });
      return;
    }
    next();
  }
}

/** Waits `ms` before the answer; false when the caller hung up first (its wait ends with it, so no timer outlives the call). */
function answeredAfter(res: Response, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', hungUp);
      resolve(true);
    }, ms);
    const hungUp = () => {
      clearTimeout(timer);
      resolve(false);
    };
    res.once('close', hungUp);
  });
}
