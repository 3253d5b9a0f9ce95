import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Where the journey's screenshots go (gitignored): artifacts/console/. */
export const SCREENSHOTS = resolve(__dirname, '../../../../artifacts/console');

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A port nobody listens on now, so PUBLIC_BASE_URL can name it before the app starts. */
/** The folder picker's row for a folder (its accessible name is the folder's name). */
export const treeItem = (page: Page, name: string): Locator =>
  page.locator(`li[role="treeitem"][aria-label="${name}"]`).first();

export async function waitForChecked(
  page: Page,
  name: string,
  checked: 'true' | 'false' | 'mixed',
  timeout = 15_000,
): Promise<void> {
  await page
    .locator(`li[role="treeitem"][aria-label="${name}"][aria-checked="${checked}"]`)
    .first()
    .waitFor({ timeout });
}

export const alertWith = (page: Page, text: string): Locator =>
  page.getByRole('alert').filter({ hasText: text }).first();
