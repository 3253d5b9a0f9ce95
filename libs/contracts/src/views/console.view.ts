/** `/console/config.json`: what the console's browser code needs to know before it signs in. */
export interface ConsoleConfigView {
  approvalServiceUrl: string;
  devLogin: boolean;
  redirectUri: string;
}

/** `POST /console/dev-token` (development sign-in only). */
export interface DevTokenView {
  token: string;
}
