import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { freePort, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectorTestApp, startConnectorApp } from '../../connector-service/test/support/connector-app';
import { providerBody } from '../../connector-service/test/support/oauth-flow';
import { alertWith, hasChromium, launchChromium } from './support/browser';
import { freshConsoleBuild } from './support/console-build';

const describeInBrowser = hasChromium ? describe : describe.skip;

/**
 * The sign-in window is the document system's page: a third party's script runs there while the person
 * signs in. It must not reach the console's tab (reverse tabnabbing), and the connection must still be
 * made. The simulator asks for a password here (no auto-approve), as a real document system does.
 */
describeInBrowser('The console in Chromium: the OAuth sign-in window and the console tab', () => {
  let sim: RunningSimulator;
  let connector: ConnectorTestApp;
  let browser: Browser;
  let admin: TestCaller;
  let base: string;

  beforeAll(async () => {
    const consoleDir = freshConsoleBuild();
    sim = await startSimulator();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const clientId = `popup-${randomUUID()}`;
    await sim.admin.post('/oauth/clients', {
      clientId,
      clientSecrets: ['popup-secret'],
      redirectUris: [`${base}/v2/OAuth/callback`],
    });
    connector = await startConnectorApp({ env: { PUBLIC_BASE_URL: base, CONSOLE_DIR: consoleDir }, port });
    admin = await testCaller({ roles: ['admin'] });
    const http = () => request(connector.app.getHttpServer());
    await http()
      .post('/v2/OAuth/providers')
      .set(admin.auth)
      .send(providerBody(sim, { clientId, clientSecret: 'popup-secret' }))
      .expect(201);
    await http()
      .post('/v1/credentials')
      .set(admin.auth)
      .send({ name: 'Alice', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
      .expect(201);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await connector?.close();
    await sim?.close();
  });

  /**
   * A console tab on the credentials, signed in as a new admin of the tenant (no connection yet, so its check
   * offers Connect); a tab of the same context is the same person's, and shares its BroadcastChannels.
   */
  async function consoleTab(context?: BrowserContext): Promise<Page> {
    if (!context) {
      const person = await testCaller({ tenantId: admin.tenantId, roles: ['admin'] });
      context = await browser.newContext();
      await context.addInitScript(`sessionStorage.setItem('console.token', ${JSON.stringify(person.token)})`);
    }
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/console/credentials`);
    await page.getByRole('article', { name: 'Credential Alice' }).getByRole('button', { name: 'Validate' }).click();
    return page;
  }

  /** Connect from the credential's check; resolves once the popup shows the document system's sign-in page. */
  async function openSignIn(page: Page): Promise<Page> {
    const opened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    const popup = await opened;
    await popup.getByRole('button', { name: 'Sign in and allow' }).waitFor();
    expect(popup.url()).toMatch(new RegExp(`^${sim.url}/oauth/authorize\\?`));
    return popup;
  }

  async function signIn(popup: Page): Promise<void> {
    await popup.getByLabel('Username').fill(SEED_USERS.alice.username);
    await popup.getByLabel('Password').fill(SEED_USERS.alice.password);
    await popup.getByRole('button', { name: 'Sign in and allow' }).click();
  }

  /** Signs in and waits for the console to close the popup (it may close before the click returns). */
  async function signInUntilClosed(popup: Page): Promise<void> {
    const closed = popup.waitForEvent('close');
    await signIn(popup);
    await closed;
  }

  const waiting = (page: Page): Locator => page.getByRole('button', { name: 'Waiting for the sign-in window…' });
  const connectionChoice = (page: Page): Locator =>
    page.getByLabel('Check with your connection').locator('option', { hasText: /^Document system · connected / });

  it("gives the document system's sign-in page no window.opener, so it cannot send the console tab elsewhere; signing in there still connects", async () => {
    const page = await consoleTab();
    const popup = await openSignIn(page);
    const consoleUrl = page.url();
    const phishing = `${sim.url}/phish.example`;
    // What a script on the provider's page could do with the console's window.
    const opener = await popup.evaluate(`(() => {
      if (window.opener === null) return null;
      window.opener.location.replace(${JSON.stringify(phishing)});
      return 'the console window, sent to ' + ${JSON.stringify(phishing)};
    })()`);
    await page.waitForURL(phishing, { timeout: 2_000 }).catch(() => undefined);
    expect({ opener, consoleTab: page.url() }).toEqual({ opener: null, consoleTab: consoleUrl });

    await signInUntilClosed(popup);
    await connectionChoice(page).waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Check credential' }).click();
    await page.getByText('Credentials are valid').waitFor();
  });

  it("settles each tab's connect by its own sign-in only: a popup finished in another tab leaves this one waiting", async () => {
    const first = await consoleTab();
    const firstPopup = await openSignIn(first);
    const second = await consoleTab(first.context());
    const secondPopup = await openSignIn(second);

    await signInUntilClosed(secondPopup);
    await connectionChoice(second).first().waitFor({ state: 'attached' });
    await waiting(first).waitFor();
    expect(await first.getByRole('alert').count()).toBe(0);

    await signInUntilClosed(firstPopup);
    await connectionChoice(first).first().waitFor({ state: 'attached' });
  });

  it('cancels while the sign-in page shows: says to close that window, which, finished anyway, still shows what happened', async () => {
    const page = await consoleTab();
    const popup = await openSignIn(page);
    await page.getByRole('button', { name: 'Cancel' }).click();
    const cancelled = alertWith(page, 'Connecting was cancelled.');
    await cancelled.getByText('Close the sign-in window, then click Connect to start again.').waitFor();

    await signIn(popup);
    await popup.getByRole('heading', { name: 'Connected' }).waitFor();
    await popup.getByText('You can close this window.').waitFor();
    expect(popup.isClosed()).toBe(false);
    await popup.close();
    expect(await cancelled.isVisible()).toBe(true);
  });
});
