import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import type { Response } from 'express';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const NOT_BUILT =
  'The console is not built: run `npm run build` (or `npm run build:console`), then reload this page.\n';

/** The built console on disk: hashed assets cached for good, index.html for every client route. */
@Injectable()
export class ConsoleFiles {
  private readonly dir: string;
  private readonly csp: string;

  constructor(env: ConnectorEnv) {
    this.dir = resolve(process.cwd(), env.CONSOLE_DIR);
    const approvals = new URL(env.APPROVAL_SERVICE_URL).origin;
    this.csp = [
      "default-src 'self'",
      `connect-src 'self' ${approvals}`,
      "img-src 'self' data: blob:",
      "style-src 'self'",
      "script-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; ');
  }

  send(res: Response, segments: string[]): void {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!existsSync(resolve(this.dir, 'index.html'))) return void res.status(404).type('text/plain').send(NOT_BUILT);
    const relative = segments.filter(Boolean).join('/');
    const isAsset = /\.[a-z0-9]+$/i.test(relative);
    // The page itself, by whatever name: always with its CSP.
    if (!isAsset || /^index\.html?$/i.test(relative)) return this.index(res);
    res.sendFile(
      relative,
      {
        root: this.dir,
        dotfiles: 'deny',
        maxAge: relative.startsWith('assets/') ? '365d' : 0,
        immutable: relative.startsWith('assets/'),
      },
      (error?: Error & { status?: number }) => {
        if (!error || res.headersSent) return;
        res
          .status(error.status === 403 ? 403 : 404)
          .type('text/plain')
          .send(`Not found: /console/${relative}\n`);
      },
    );
  }

  private index(res: Response): void {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', this.csp);
    res.setHeader('Referrer-Policy', 'same-origin');
    res.sendFile('index.html', { root: this.dir });
  }
}
