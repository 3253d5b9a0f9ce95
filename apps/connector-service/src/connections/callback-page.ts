import { randomToken } from './pkce';

export interface CallbackOutcome {
  ok: boolean;
  connectionId?: string;
  providerId?: string;
  code?: string;
  message: string;
  resolution?: string;
}

/**
 * The popup's last page: tells the opener (on `openerOrigin` only) how it went, then closes. Without
 * an opener it stays and says what happened.
 */
export function callbackPage(outcome: CallbackOutcome, openerOrigin: string): { html: string; csp: string } {
  const nonce = randomToken(16);
  const message = JSON.stringify({ type: 'oauth-connection', ...outcome }).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${outcome.ok ? 'Connected' : 'Connection failed'}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:3rem auto;max-width:36rem;color:#222}h1{font-size:1.3rem}</style></head>
<body><h1>${outcome.ok ? 'Connected' : 'Connection failed'}</h1><p>${escape(outcome.message)}</p>
${outcome.resolution ? `<p><strong>What to do:</strong> ${escape(outcome.resolution)}</p>` : ''}
<p>You can close this window.</p>
<script nonce="${nonce}">
if (window.opener) { window.opener.postMessage(${message}, ${JSON.stringify(openerOrigin)}); ${outcome.ok ? 'window.close();' : ''} }
</script></body></html>`;
  return {
    html,
    csp: `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; base-uri 'none'; frame-ancestors 'none'`,
  };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
