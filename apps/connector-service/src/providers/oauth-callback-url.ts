import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';

export const OAUTH_CALLBACK_PATH = '/v2/OAuth/callback';

/** `{PUBLIC_BASE_URL}/v2/OAuth/callback`, exactly: the redirect URI admins register and every request sends. */
@Injectable()
export class OAuthCallbackUrl {
  readonly value: string;

  constructor(env: ConnectorEnv) {
    this.value = `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}${OAUTH_CALLBACK_PATH}`;
  }
}
