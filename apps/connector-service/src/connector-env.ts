import { IsBoolean } from 'class-validator';
import { BaseEnv, booleanFromEnv } from '@app/config';

export class ConnectorEnv extends BaseEnv {
  PORT: number = 3001;
  PUBLIC_BASE_URL = 'http://localhost:3001';

  /** Allow plain-http OAuth endpoints and instance URLs (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  ALLOW_INSECURE_URLS: boolean = false;
}
