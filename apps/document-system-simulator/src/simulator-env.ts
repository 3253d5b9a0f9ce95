import { IsOptional, IsString } from 'class-validator';
import { AppEnv } from '@app/config';

/** No database, no Redis: the state is in memory, and in SIMULATOR_STATE_FILE when that is set. */
export class SimulatorEnv extends AppEnv {
  PORT: number = 3003;
  PUBLIC_BASE_URL = 'http://localhost:3003';

  /** Users, tree and OAuth grants are kept here across restarts (`npm start`: .data/simulator/state.json). */
  @IsOptional()
  @IsString()
  SIMULATOR_STATE_FILE?: string;
}
