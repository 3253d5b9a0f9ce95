import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';

/** No database, no Redis: the state is in memory, and in SIMULATOR_STATE_FILE when that is set. */
export class SimulatorEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3003;

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL = 'http://localhost:3003';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Users, tree and OAuth grants are kept here across restarts (`npm start`: .data/simulator/state.json). */
  @IsOptional()
  @IsString()
  SIMULATOR_STATE_FILE?: string;
}
