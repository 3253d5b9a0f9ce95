import { IsIn, IsInt, IsUrl, Max, Min } from 'class-validator';

/** The simulator keeps everything in memory: no database, no Redis. */
export class SimulatorEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3003;

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL = 'http://localhost:3003';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';
}
