import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { SimulatorStateService } from './simulator-state.service';

/**
 * Every change to the simulator's saved state arrives as a request other than GET (admin API, token
 * endpoint), so a save scheduled after each such request cannot miss one.
 */
@Injectable()
export class StateSavingMiddleware implements NestMiddleware {
  constructor(private readonly state: SimulatorStateService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') res.once('close', () => this.state.changed());
    next();
  }
}
