import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import type { Response } from 'express';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const NOT_BUILT =
  'The console is not built: run `npm run build` (or `npm run build:console`), then reload this page.\n';

/** The built console on disk: hashed assets under assets/ cached for good, index.html for every other name. */
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
    const parts = segments.filter(Boolean);
    const relative = parts.join('/');
    // Segments arrive decoded: a %2F, %5C or dot segment would name another file than the path shows.
    if (parts.some((part) => /[/\\]/.test(part) || part === '.' || part === '..')) return this.refuse(res, relative);
    // Only the build's assets are files; every other name is the page, always with its CSP.
    if (parts[0] !== 'assets' || parts.length < 2) return this.index(res);
    res.sendFile(
      relative,
      { root: this.dir, dotfiles: 'deny', maxAge: '365d', immutable: true },
      (error?: Error & { status?: number }) => {
        if (!error || res.headersSent) return;
        this.refuse(res, relative, error.status === 403 ? 403 : 404);
      },
    );
  }

  private refuse(res: Response, relative: string, status = 404): void {
    res.status(status).type('text/plain').send(`Not found: /console/${relative}\n`);
  }

  private index(res: Response): void {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', this.csp);
    res.setHeader('Referrer-Policy', 'same-origin');
    res.sendFile('index.html', { root: this.dir });
  }
}
