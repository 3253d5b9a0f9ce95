const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const FORWARDED = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'nonce',
];

/** The simulated document system's sign-in and consent page. */
export function loginPage(params: Record<string, string | undefined>, error?: string): string {
  const hidden = FORWARDED.filter((k) => params[k] !== undefined)
    .map((k) => `<input type="hidden" name="${k}" value="${escape(params[k]!)}">`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Document system (simulator)</title>
<style>body{font:15px system-ui,sans-serif;background:#f4f5f7;display:grid;place-items:center;height:100vh;margin:0}form{background:#fff;padding:28px;border-radius:8px;box-shadow:0 1px 4px #0002;width:320px}label{display:block;margin:12px 0 4px}input[type=text],input[type=password]{width:100%;padding:8px;box-sizing:border-box}button{margin-top:16px;padding:8px 14px}.error{color:#b00020}</style></head>
<body><form method="post" action="/oauth/authorize"><h2>Document system</h2>
<p><strong>${escape(params.client_id ?? '')}</strong> asks for access (${escape(params.scope ?? '')}).</p>
${error ? `<p class="error">${escape(error)}</p>` : ''}
<label for="username">Username</label><input id="username" type="text" name="username" autocomplete="username" autofocus>
<label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password">
${hidden}<button type="submit" name="decision" value="allow">Sign in and allow</button> <button type="submit" name="decision" value="deny">Deny</button>
<p style="color:#666;font-size:13px">Seeded users: alice / alice-password, bob / bob-password.</p></form></body></html>`;
}
