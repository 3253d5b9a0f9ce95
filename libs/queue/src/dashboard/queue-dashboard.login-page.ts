import type { ServerResponse } from 'node:http';

/** The console's colours, type and card, so the dashboard's sign-in looks like the rest of the platform. */
const STYLE = `
:root { --ink: #1d2330; --muted: #5d6678; --line: #dfe3ea; --soft: #f5f7fa; --accent: #2f5bd3; color: var(--ink);
  background: var(--soft); font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; }
main { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1.5rem; width: min(28rem, 100%); }
h1 { font-size: 1.25rem; margin: 0 0 0.5rem; font-weight: 600; }
p { color: var(--muted); margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input { width: 100%; font: inherit; padding: 0.45rem 0.6rem; border: 1px solid var(--line); border-radius: 6px; }
input:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
button { margin-top: 1rem; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0;
  border-radius: 6px; padding: 0.5rem 1rem; cursor: pointer; }
code { font-size: 0.9em; }`;

/** The queue dashboard's sign-in form: the admin token goes in a POST body, never in a URL. */
export function sendLoginPage(res: ServerResponse, action: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Queue dashboard · sign in</title><style>${STYLE}</style></head>
<body><main>
<h1>Queue dashboard</h1>
<p>Every tenant's jobs: for the operators' admins. Paste an admin token of the tenant
<code>QUEUE_DASHBOARD_TENANT</code> names (<code>npm start</code> prints one).</p>
<form method="post" action="${action}">
<label for="token">Admin token</label>
<input id="token" type="password" name="token" autocomplete="off" required>
<button type="submit">Open the queue dashboard</button>
</form>
</main></body></html>`);
}
