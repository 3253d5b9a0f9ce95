import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { resolve } from 'node:path';
import { OAuthState } from '../oauth/oauth-clients';
import { SimulatorEnv } from '../simulator-env';
import { SimulatorStore } from '../store/simulator-store';
import { restoreSnapshot, takeSnapshot } from './simulator-snapshot';
import { StateFile } from './state-file';

/** Changes are written at most this often; a shutdown writes the last ones at once. */
export const SAVE_DELAY_MS = 200;

/**
 * Keeps the simulator's state in SIMULATOR_STATE_FILE across restarts: loaded at start, saved shortly
 * after changes. Without the variable everything stays in memory (tests stay isolated).
 */
@Injectable()
export class SimulatorStateService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SimulatorStateService.name);
  private readonly file: StateFile | null;
  private pending: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: SimulatorStore,
    private readonly oauth: OAuthState,
    env: SimulatorEnv,
  ) {
    const path = env.SIMULATOR_STATE_FILE;
    this.file = path ? new StateFile(resolve(path)) : null;
  }

  onModuleInit(): void {
    if (!this.file) return;
    try {
      const saved = this.file.read();
      if (saved === null) return this.changed();
      restoreSnapshot(this.store, this.oauth, saved);
    } catch (error) {
      throw new Error(
        `The simulator's state file ${this.file.path} cannot be used: ${(error as Error).message}. Fix it, or delete it to start from the seeded project.`,
        { cause: error },
      );
    }
    this.logger.log(`State loaded from ${this.file.path}`);
  }

  /** Something may have changed: save soon. */
  changed(): void {
    if (!this.file || this.pending) return;
    this.pending = setTimeout(() => this.save(), SAVE_DELAY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.pending) await this.save();
    await this.writing;
  }

  private save(): Promise<void> {
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
    const snapshot = takeSnapshot(this.store, this.oauth);
    this.writing = this.writing
      .then(() => this.file!.write(snapshot))
      .catch((error: Error) => this.logger.error(`Could not save the state to ${this.file!.path}: ${error.message}`));
    return this.writing;
  }
}
