import { IsOptional, IsString } from 'class-validator';
import { AppEnv } from '@app/config';

/** No database, no Redis: the state is in memory, and in SIMULATOR_STATE_FILE when that is set. */
export class SimulatorEnv extends AppEnv {
  PORT: number = 3003;
  /**
   * The issuer it names in discovery, tokens and redirects. Unset, it is the address each request came
   * to, so a simulator on a random port (tests) names itself correctly.
   */
  declare PUBLIC_BASE_URL?: string;

  /** Users, tree and OAuth grants are kept here across restarts (`npm start`: .data/simulator/state.json). */
  @IsOptional()
  @IsString()
  SIMULATOR_STATE_FILE?: string;
}
