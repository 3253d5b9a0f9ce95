import { randomToken } from './pkce';

export interface CallbackOutcome {
  ok: boolean;
  connectionId?: string;
  providerId?: string;
  code?: string;
  message: string;
  resolution?: string;
}

/** Where the console's tab listens (apps/console/src/connections/oauth-popup.ts); same-origin only. */
export const OAUTH_OUTCOME_CHANNEL = 'oauth-connection-outcome';

/**
 * The popup's last page. As CONTRACT.md has it, it tells its opener (on `openerOrigin` only) how it went and,
 * on success, closes; without an opener it stays and says what happened. It also says so on a BroadcastChannel
 * under the OAuth `state` the flow started with (spent by now; no token is in the message): the console cuts its
 * popup's opener before sending it to the provider, so the provider's pages cannot reach the console tab, and
 * listens there instead (apps/console/src/connections/oauth-popup.ts), closing this page on success.
 */
export function callbackPage(
  outcome: CallbackOutcome,
  openerOrigin: string,
  state: string | undefined,
): { html: string; csp: string } {
  const nonce = randomToken(16);
  const title = outcome.ok ? 'Connected' : 'Connection failed';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:36rem;color:#222}h1{font-size:1.3rem}</style></head>
<body><h1>${title}</h1><p>${escape(outcome.message)}</p>
${outcome.resolution ? `<p><strong>What to do:</strong> ${escape(outcome.resolution)}</p>` : ''}
<p>You can close this window.</p>
${tellConsole(nonce, openerOrigin, state, outcome)}</body></html>`;
  return {
    html,
    csp: `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
  };
}

function tellConsole(nonce: string, openerOrigin: string, state: string | undefined, outcome: CallbackOutcome): string {
  const message = JSON.stringify({ type: 'oauth-connection', state, ...outcome }).replace(/</g, '\\u003c');
  const channel = state
    ? `new BroadcastChannel(${JSON.stringify(OAUTH_OUTCOME_CHANNEL)}).postMessage(${message});`
    : '';
  return `<script nonce="${nonce}">
${channel}
if (window.opener) { window.opener.postMessage(${message}, ${JSON.stringify(openerOrigin)}); ${outcome.ok ? 'window.close();' : ''} }
</script>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
