import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signPlatformToken } from '@app/auth';
import type { ApprovalView } from '@app/contracts/views';
import { eventually, freePort, HttpPeer, RunningSimulator, TEST_JWT_SECRET } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { ApprovalTestApp, approvalRequest, startApprovalApp } from '../../approval-service/test/support/approval-app';
import { ConnectorTestApp, startConnectorApp } from '../../connector-service/test/support/connector-app';
import { SEED_PHRASES, SEED_USERS } from '../../document-system-simulator/src/store/seed';
import {
  alertWith,
  hasChromium,
  launchChromium,
  screenshot,
  SCREENSHOTS,
  treeItem,
  waitForChecked,
} from './support/browser';
import { freshConsoleBuild } from './support/console-build';

if (!hasChromium) process.stdout.write('Chromium not found at /usr/bin/chromium: skipped the console browser tests\n');
const describeInBrowser = hasChromium ? describe : describe.skip;

/**
 * The console in a real browser against the simulator: an admin registers connectors and credentials,
 * a user creates a data source through the OAuth popup, picks folders, syncs, searches and opens a
 * document; plus the SPEC's error paths and the approvals monitor. Screenshots: artifacts/console/.
 */
describeInBrowser('The console in Chromium: the whole journey against the simulator', () => {
  let sim: RunningSimulator;
  let connector: ConnectorTestApp;
  let approvals: ApprovalTestApp;
  let receiver: HttpPeer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const tenantId = randomUUID();
  const clientId = `console-${randomUUID()}`;
  const narrowClientId = `console-narrow-${randomUUID()}`;
  const pageErrors: string[] = [];
  /** The simulator keeps its grants and tree here, so the stack can be restarted mid-journey. */
  const simulatorState = join(mkdtempSync(join(tmpdir(), 'console-journey-')), 'simulator.json');
  let port: number;

  beforeAll(async () => {
    const consoleDir = freshConsoleBuild();
    sim = await startSimulator({ env: { SIMULATOR_STATE_FILE: simulatorState } });
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' });
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const redirectUris = [`${base}/v2/OAuth/callback`];
    await sim.admin.post('/oauth/clients', {
      clientId,
      clientSecrets: ['first-secret', 'second-secret'],
      redirectUris,
    });
    await sim.admin.post('/oauth/clients', {
      clientId: narrowClientId,
      clientSecrets: ['narrow-secret'],
      redirectUris,
      scopes: ['openid'],
    });
    receiver = await new HttpPeer().start();
    // Its decision pages open in the browser, so the links it makes name the address it listens on.
    const approvalsPort = await freePort();
    approvals = await startApprovalApp(
      {
        CORS_ORIGINS: base,
        PUBLIC_BASE_URL: `http://127.0.0.1:${approvalsPort}`,
        WEBHOOK_REMIND_MIN_SECONDS: 1,
        DECISION_TIMEOUT_MIN_SECONDS: 1,
      },
      'all',
      approvalsPort,
    );
    connector = await startConnectorApp({
      env: {
        PUBLIC_BASE_URL: base,
        CONSOLE_DIR: consoleDir,
        CONSOLE_DEV_LOGIN: true,
        APPROVAL_SERVICE_URL: approvals.url,
      },
      port,
    });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    // Generous: the full suite keeps both cores busy while this journey runs.
    page.setDefaultTimeout(45_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await connector?.close();
    await approvals?.close();
    await receiver?.stop();
    await sim?.close();
    rmSync(dirname(simulatorState), { recursive: true, force: true });
  });

  /** A section by its link; should the sections be missing, the error says what the page showed instead. */
  const nav = async (label: string) => {
    try {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label }).click();
    } catch (error) {
      const shown = await page
        .locator('body')
        .innerText()
        .catch((cause: Error) => `(unreadable: ${cause.message})`);
      throw new Error(`${(error as Error).message}\nThe page at ${page.url()} showed: ${shown.slice(0, 1000)}`, {
        cause: error,
      });
    }
  };
  const field = (label: string) => page.getByLabel(label, { exact: true });
  /** The picker has saved and shows the server's tri-state again (the tree is no longer busy). */
  const saved = async (summary: string) => {
    await page.locator('ul[role="tree"][aria-label="Folders"][aria-busy="false"]').waitFor();
    await page.getByText(summary).waitFor();
  };

  it('signs in with a development token for a tenant, user and role', async () => {
    await page.goto(`${base}/console`);
    await page.getByRole('heading', { name: 'Development sign-in' }).waitFor();
    await screenshot(page, '01-sign-in');
    await field('Tenant').fill(tenantId);
    await field('User').fill('admin-1');
    await page.getByRole('button', { name: 'Sign in for development' }).click();
    await page.getByRole('heading', { name: 'Data sources' }).waitFor();
    expect(await page.evaluate('Object.keys(sessionStorage).sort()')).toEqual(['console.token']);
    expect(await page.evaluate('Object.keys(localStorage)')).toEqual([]);
  });

  it('registers OAuth connectors: field errors beside their fields, the redirect URI to copy, the offline_access warning, secret rotation, delete', async () => {
    await nav('OAuth connectors');
    await page.getByRole('button', { name: 'Register connector' }).click();
    await page.getByText(`${base}/v2/OAuth/callback`).first().waitFor();
    await field('Name').fill('Broken');
    await field('Supported scopes').fill('profile');
    await field('Authorization endpoint').fill('not a url');
    await page.getByRole('button', { name: 'Register connector' }).click();
    await alertWith(page, 'Some fields need attention').waitFor();
    await page
      .locator('.field-invalid', { hasText: 'Supported scopes' })
      .getByText('Must contain openid', { exact: true })
      .waitFor();
    await page.locator('.field-invalid', { hasText: 'Client ID' }).waitFor();
    await page.locator('.field-invalid', { hasText: 'Authorization endpoint' }).waitFor();
    await screenshot(page, '02-connector-validation');

    await registerConnector('Document system', clientId, 'first-secret', 'openid offline_access');
    await registerConnector('No refresh', clientId, 'first-secret', 'openid');
    await page
      .getByRole('status')
      .filter({ hasText: 'Connector “No refresh” registered' })
      .getByText('lacks offline_access')
      .waitFor();
    await page.getByRole('article', { name: 'Connector No refresh' }).getByText('lacks offline_access').waitFor();
    await registerConnector('Narrow client', narrowClientId, 'narrow-secret', 'openid offline_access');
    const main = page.getByRole('article', { name: 'Connector Document system' });
    expect(await main.getByText('lacks offline_access').count()).toBe(0);
    await main.getByText(`${base}/v2/OAuth/callback`).waitFor();

    await main.getByRole('button', { name: 'Rotate client secret' }).click();
    await main.getByLabel('New client secret').fill('second-secret');
    await main.getByRole('button', { name: 'Save new secret' }).click();
    await main.getByText('Client secret rotated (version 2)').waitFor();

    await screenshot(page, '03-connectors');
    const noRefresh = page.getByRole('article', { name: 'Connector No refresh' });
    await noRefresh.getByRole('button', { name: 'Delete' }).click();
    await noRefresh.getByRole('button', { name: 'Yes, delete' }).click();
    await noRefresh.waitFor({ state: 'detached' });
  });

  it('creates credentials: the right one and one with a wrong password', async () => {
    await nav('Credentials');
    await createCredential('Alice', SEED_USERS.alice.password);
    await createCredential('Alice (typo)', 'not-her-password');
    // No connection to the document system yet: saved, and said to be unchecked.
    await page.getByRole('article', { name: 'Credential Alice (typo)' }).getByText('Saved, not checked yet').waitFor();
    await screenshot(page, '04-credentials');
  });

  it('creates a data source through the OAuth popup; "Credentials are invalid" in the picker until another credential is chosen', async () => {
    await nav('Data sources');
    await page.getByRole('button', { name: 'New data source' }).click();
    await field('Data source name').fill('Project documents');
    await field('OAuth connector').selectOption({ label: 'Document system' });
    await field('Saved credential').selectOption({ label: `Alice (typo) (alice at ${sim.url})` });
    await page.getByRole('button', { name: 'Next: connect' }).click();
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    const popup = await popupOpened;
    await popup.waitForEvent('close', { timeout: 20_000 });

    const invalid = alertWith(page, 'Credentials are invalid');
    await invalid.waitFor();
    await invalid.getByText('check the instance URL').waitFor();
    await screenshot(page, '05-picker-credentials-invalid');
    await invalid.getByLabel('Use another credential').selectOption({ label: `Alice (alice at ${sim.url})` });
    await invalid.getByRole('button', { name: 'Use this credential' }).click();
    await treeItem(page, 'Architecture').waitFor();
    expect(
      await page
        .locator('li[role="treeitem"][aria-level="1"]')
        .evaluateAll((items) => items.map((i) => i.getAttribute('aria-label'))),
    ).toEqual(['Architecture', 'Structural', 'MEP']);
  });

  it('selects a workgroup, excludes a subfolder by keyboard, and the workgroup shows Partial (aria-checked="mixed")', async () => {
    // Its name opens a folder without selecting it; the box selects it.
    await treeItem(page, 'Architecture').locator('.tree-name').first().click();
    await treeItem(page, 'Drawings').waitFor();
    await waitForChecked(page, 'Architecture', 'false');
    await treeItem(page, 'Architecture').locator('.tree-name').first().click();
    await page.locator('li[role="treeitem"][aria-label="Architecture"][aria-expanded="false"]').waitFor();
    await treeItem(page, 'Architecture').locator('.check').first().click();
    await saved('Included: Architecture. Saved.');
    await waitForChecked(page, 'Architecture', 'true');

    await treeItem(page, 'Architecture').focus();
    await page.keyboard.press('Enter');
    await waitForChecked(page, 'Drawings', 'true');
    await sim.admin.put('/settings', { pageSize: 3 });
    try {
      await page.keyboard.press('ArrowDown'); // Drawings
      await page.keyboard.press('ArrowRight'); // open it: three subfolders and "Load more"
      await treeItem(page, 'Level 2').waitFor();
      await page.getByRole('button', { name: 'Load more' }).click();
      await treeItem(page, 'Sections').waitFor();
      expect(await treeItem(page, 'Drawings').locator('li[role="treeitem"]').count()).toBe(4);
    } finally {
      await sim.admin.put('/settings', { pageSize: 50 });
    }
    await treeItem(page, 'Drawings').focus();
    await page.keyboard.press('ArrowLeft'); // close Drawings again
    await page.locator('li[role="treeitem"][aria-label="Drawings"][aria-expanded="false"]').waitFor();
    await page.keyboard.press('ArrowDown'); // RFIs
    expect(await page.evaluate(`document.activeElement?.getAttribute('aria-label')`)).toBe('RFIs');
    await page.keyboard.press(' ');
    await saved('Included: Architecture · excluded: RFIs. Saved.');
    await waitForChecked(page, 'RFIs', 'false');
    await waitForChecked(page, 'Architecture', 'mixed');
    await waitForChecked(page, 'Drawings', 'true');
    await screenshot(page, '06-picker-partial');
    await page.getByRole('button', { name: 'Done: open the data source' }).click();
  });

  it('syncs: the progress bar fills with the run counts and bytes, and the data source reaches Synced', async () => {
    await page.getByRole('heading', { name: 'Project documents' }).waitFor();
    await page.getByTestId('ingestion-status').getByText('Pending').waitFor();
    // The panel follows the run through its event stream, not by polling.
    const streamed = page.waitForResponse((r) => /\/v1\/sync-runs\/[^/]+\/events$/.test(new URL(r.url()).pathname));
    await page.getByRole('button', { name: 'Sync now' }).click();
    expect((await streamed).headers()['content-type']).toMatch(/^text\/event-stream/);
    await page.getByRole('progressbar', { name: 'Sync progress' }).waitFor();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor({ timeout: 60_000 });
    const bar = page.getByRole('progressbar', { name: 'Sync progress' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    const count = async (key: string) => Number(await page.locator(`[data-count="${key}"]`).textContent());
    expect(await count('discovered')).toBeGreaterThan(5);
    expect(await count('added')).toBe(await count('discovered'));
    // No file failed to download: no such count is shown (text extraction says its own failures, once).
    expect(await page.locator('[data-count="failed"]').count()).toBe(0);
    expect(await page.locator('[data-count="bytes"]').textContent()).toMatch(/KiB|B$/);
    await page.getByRole('table', { name: 'Run history' }).getByText('Succeeded').waitFor();
    await page
      .getByRole('table', { name: 'Run history' })
      .getByText(new RegExp(`^${await count('discovered')} found: ${await count('added')} added$`))
      .waitFor();
    const ledger = page.getByRole('table', { name: 'Files of the run' });
    await ledger.getByText('Added').first().waitFor();
    expect(await ledger.locator('tbody tr').count()).toBe(await count('added'));
    const uses = page.getByLabel('Signs in with');
    await uses.getByText('Document system, your connection').waitFor();
    await uses.getByText(`Alice (alice at ${sim.url})`).waitFor();
    await page.getByRole('button', { name: 'Architecture' }).click();
    await page.getByRole('button', { name: 'Drawings' }).waitFor();
    expect(await page.getByRole('tree', { name: 'Ingested files' }).getByText('RFIs').count()).toBe(0);
    // The panel follows the text extraction that runs after the sync until no file waits for its text.
    await page
      .getByTestId('text-extraction')
      .filter({ hasText: /^Text extracted: \d+ of \d+(, \d+ failed)?$/ })
      .waitFor({ timeout: 60_000 });
    // Once synced, the data source page names its selected folders from the ingested tree.
    await page.getByTestId('selection-summary').getByText('Included: Architecture · excluded: RFIs.').waitFor();
    await screenshot(page, '07-data-source-synced');
  });

  it('comes back after the connector and the document system restart: the data source, its connection and a sync survive', async () => {
    const runs = page.getByRole('table', { name: 'Run history' }).locator('tbody tr');
    const before = await runs.count();
    const simulatorPort = Number(new URL(sim.url).port);
    await connector.close();
    await sim.close();
    sim = await startSimulator({ env: { SIMULATOR_STATE_FILE: simulatorState }, port: simulatorPort });
    await sim.admin.put('/oauth/settings', { autoApproveUser: 'alice' }); // a test setting, not kept in its state
    connector = await startConnectorApp({ env: connector.env, port });
    await page.reload();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await eventually(async () => (await runs.count()) === before + 1, 60_000, 200);
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await runs.first().textContent()).toContain('Succeeded');
    expect(await alertWith(page, 'Reconnect to the document system').count()).toBe(0);
    await screenshot(page, '07a-after-restart');
    await page.setViewportSize({ width: 760, height: 900 });
    await screenshot(page, '07a-760-after-restart');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 180_000); // two restarts, then a sync: its own waits allow 60 s each

  it('reconnects from the data source page after the document system forgot its authorizations, and syncs again', async () => {
    // As when the document system revokes its grants (a restart no longer does, see above): no refresh token works.
    await sim.admin.post('/oauth/revoke-refresh-tokens');
    await sim.admin.post('/expire', { accessTokens: true });
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('ingestion-status').getByText('Needs reauth').waitFor({ timeout: 60_000 });
    const banner = alertWith(page, 'Reconnect to the document system');
    await banner.waitFor();
    await screenshot(page, '07b-reconnect');
    const popupOpened = page.waitForEvent('popup');
    await banner.getByRole('button', { name: 'Reconnect', exact: true }).click();
    await (await popupOpened).waitForEvent('close', { timeout: 20_000 });
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByRole('table', { name: 'Run history' }).getByText('Succeeded').first().waitFor();
  });

  it('finds a phrase from a PDF, opens its text and downloads the original', async () => {
    // Text is extracted on the indexing queue after the run ends: search sees it once nothing is Pending.
    await eventually(
      async () =>
        !(await connector.db.query(`SELECT 1 FROM connector.documents WHERE "extractionStatus" = 'Pending' LIMIT 1`))
          .length,
      60_000,
      100,
    );
    await nav('Search');
    await page.getByRole('searchbox').fill(`"${SEED_PHRASES.pdf}"`);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hit = page.locator('.hit', { hasText: 'A-501 Wall Sections.pdf' });
    await hit.waitFor();
    await hit.getByText('/Architecture/Drawings/Sections/A-501 Wall Sections.pdf').waitFor();
    await hit.getByText('Project documents').waitFor();
    expect(await hit.locator('mark').count()).toBeGreaterThan(0);
    await screenshot(page, '08-search');
    await hit.getByRole('button', { name: 'Open text' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Document text').getByText(SEED_PHRASES.pdf).waitFor();
    await screenshot(page, '09-document-text');
    const downloaded = page.waitForEvent('download');
    await dialog.getByRole('button', { name: 'Download original' }).click();
    expect((await downloaded).suggestedFilename()).toBe('A-501 Wall Sections.pdf');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it("finds passages with their page and character range, and opens the document's text at one of them", async () => {
    await page.getByLabel('Data source', { exact: true }).selectOption({ label: 'Project documents' });
    await page.getByLabel('Passages: the text to quote, with its page').check();
    await page.getByRole('searchbox').fill('parapet');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const passage = page.getByRole('list', { name: 'Passages' }).locator('.passage', { hasText: 'Parapet detail P2' });
    await passage.waitFor();
    // The PDF's second page holds the detail; its range is in the document's text.
    const place = await passage.locator('.passage-place').textContent();
    expect(place).toMatch(/^page 2 · characters \d+–\d+$/);
    await passage.getByRole('button', { name: 'A-501 Wall Sections.pdf' }).waitFor();
    await screenshot(page, '08b-search-passages');

    await passage.getByRole('button', { name: 'Open at this passage' }).click();
    const dialog = page.getByRole('dialog');
    const [, characters] = place!.split(' · ');
    await dialog
      .getByTestId('passage-at')
      .getByText(`The passage on page 2, ${characters}, is highlighted below.`)
      .waitFor();
    const text = dialog.getByLabel('Document text');
    expect(await text.locator('mark').textContent()).toContain('Parapet detail P2');
    expect(await text.locator('.page-label').allTextContents()).toEqual(['Page 1', 'Page 2']);
    await dialog.getByText('2 pages', { exact: false }).waitFor();
    await screenshot(page, '09b-document-text-at-a-passage');
    await dialog.getByRole('button', { name: 'Close' }).click();
    // Back to documents: the same question answered as hits again.
    await page.getByLabel('Documents', { exact: true }).check();
    await page.locator('.hit', { hasText: 'A-501 Wall Sections.pdf' }).locator('mark').first().waitFor();
  });

  it('checks a credential when it is saved once the user has a connection: accepted, or saved and flagged', async () => {
    await nav('Credentials');
    for (const [name, password, said] of [
      ['Alice (checked)', SEED_USERS.alice.password, 'Saved and checked: the document system accepts it'],
      ['Alice (wrong)', 'wrong-password', 'Saved, but the document system refused it'],
    ]) {
      await createCredential(name, password);
      const card = page.getByRole('article', { name: `Credential ${name}` });
      await card.getByText(said).waitFor();
      if (name === 'Alice (wrong)') await screenshot(page, '10a-credential-flagged-on-save');
      await card.getByRole('button', { name: 'Delete' }).click();
      await card.getByRole('button', { name: 'Yes, delete' }).click();
      await card.waitFor({ state: 'detached' });
    }
  });

  it('validates credentials: a wrong password shows "Credentials are invalid", a rotated one is valid', async () => {
    await nav('Credentials');
    const typo = page.getByRole('article', { name: 'Credential Alice (typo)' });
    await typo.getByRole('button', { name: 'Validate' }).click();
    await typo.getByRole('button', { name: 'Check credential' }).click();
    await alertWith(page, 'Credentials are invalid').waitFor();
    await screenshot(page, '10-credential-invalid');
    await typo.getByRole('button', { name: 'Rotate password' }).click();
    await typo.getByLabel('New password').fill(SEED_USERS.alice.password);
    await typo.getByRole('button', { name: 'Save password' }).click();
    await typo.getByText('Password changed').waitFor();
    await typo.getByRole('button', { name: 'Validate' }).click();
    await typo.getByRole('button', { name: 'Check credential' }).click();
    await typo.getByText('Credentials are valid').waitFor();
  });

  it("shows the provider's invalid_scope from the popup with its resolution", async () => {
    await nav('Data sources');
    await page.getByRole('button', { name: 'New data source' }).click();
    await field('Data source name').fill('Narrow');
    await field('OAuth connector').selectOption({ label: 'Narrow client' });
    await page.getByRole('button', { name: 'Next: connect' }).click();
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    const popup = await popupOpened;
    const failed = alertWith(page, 'invalid_scope');
    await failed.waitFor();
    await failed.getByText('Enable the scopes openid and offline_access').waitFor();
    await failed.getByText('drop offline_access from the connector').waitFor();
    await popup.getByText('What to do:').waitFor();
    await popup.close();
    await screenshot(page, '11-invalid-scope');
  });

  it("monitors approvals: the list by status and one approval's timeline with the decision and its comment", async () => {
    receiver.handler = (_req, res) => void res.writeHead(200).end('ok');
    const token = await signPlatformToken(TEST_JWT_SECRET, { tenantId, userId: 'runtime', roles: ['agent-runtime'] });
    const created = await fetch(`${approvals.url}/v1/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(approvalRequest(`${receiver.url}/approve`)),
    });
    expect(created.status).toBe(201);
    const [delivery] = await receiver.waitForRequests(1);
    const { callbackId, callbackToken } = JSON.parse(delivery.body);
    const decided = await fetch(`${approvals.url}/v1/AgentExecutionWebhookApproval/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        callbackId,
        callbackToken,
        status: 'Approved',
        comment: 'Within budget, go ahead.',
        decidedBy: 'carol@example.com',
        output: { approvedAmount: 900, note: '<b>not bold</b> & kept as text' },
      }),
    });
    expect(decided.status).toBe(200);

    await nav('Approvals');
    await field('Status').selectOption('Approved');
    await page.getByRole('table', { name: 'Approvals' }).getByRole('link', { name: 'Procurement agent' }).click();
    const timeline = page.getByRole('article', { name: 'Approval timeline' });
    await timeline.getByText('Requested by the agent run').waitFor();
    await timeline.getByText('Delivery attempt 1: HTTP 200').waitFor();
    // The decision itself, by whom, with its comment and the output it handed the agent (escaped).
    await page.getByTestId('approval-outcome').getByText('Approved by carol@example.com').waitFor();
    const decidedEntry = timeline.locator('.timeline-decided');
    await decidedEntry.getByText('Approved by carol@example.com').waitFor();
    await decidedEntry.getByText('Within budget, go ahead.').waitFor();
    const output = decidedEntry.getByLabel('Decision output');
    await output.getByText('"approvedAmount": 900').waitFor();
    expect(await output.textContent()).toContain('"note": "<b>not bold</b> & kept as text"');
    expect(await output.locator('b').count()).toBe(0);
    expect(await timeline.getByText('Decision received').count()).toBe(0);
    await page.getByTestId('decision-deadline').getByText('No deadline').waitFor();
    // Decided: its decision page no longer answers, so the console no longer links it.
    expect(await timeline.getByRole('link', { name: 'Open the decision page' }).count()).toBe(0);
    await timeline.getByText(/\(None, \d+ s timeout, (no retry|1 retry|\d+ retries)\)/).waitFor();
    await screenshot(page, '12-approvals');
    await timeline.getByRole('button', { name: 'Close' }).click();
    await page.getByText('Choose an approval to see its timeline.').waitFor();
  });

  it('sends an awaited webhook again, and tests an endpoint before an approval step uses it', async () => {
    const token = await signPlatformToken(TEST_JWT_SECRET, { tenantId, userId: 'runtime', roles: ['agent-runtime'] });
    const request = { ...approvalRequest(`${receiver.url}/approve`), agentName: 'Awaited agent' };
    const created = await fetch(`${approvals.url}/v1/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(request),
    });
    expect(created.status).toBe(201);
    await receiver.waitForRequests(2); // the first approval's delivery, then this one's
    await page.reload();
    await field('Status').selectOption('AwaitingDecision');
    await page.getByRole('table', { name: 'Approvals' }).getByRole('link', { name: 'Awaited agent' }).click();
    const timeline = page.getByRole('article', { name: 'Approval timeline' });
    await timeline.getByRole('button', { name: 'Send the webhook again' }).click();
    await timeline.getByText('Sent again: attempt 2').waitFor();
    const [, , again] = await receiver.waitForRequests(3);
    expect(JSON.parse(again.body).executionId).toBe(request.executionId);

    await page.getByRole('button', { name: 'Test a webhook' }).click();
    await field('Webhook URL').fill(`${receiver.url}/test`);
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    await page.getByText(/^Delivered: HTTP 200 after \d+ ms$/).waitFor();
    const [, , , test] = await receiver.waitForRequests(4);
    expect(JSON.parse(test.body)).toMatchObject({ test: true, callbackId: null, callbackToken: null });
    await screenshot(page, '12b-approvals-redeliver-and-test');
  });

  it('shows the decision deadline, the reminders and the decision page; the page approves the approval by itself and the console says by whom', async () => {
    receiver.handler = (_req, res) => void res.writeHead(200).end('ok');
    const { approvalId } = await requestApproval(
      approvalRequest(
        `${receiver.url}/review`,
        { remindAfterSeconds: 2 },
        { agentName: 'Reviewed agent', decisionTimeoutSeconds: 3600 },
      ),
    );
    await eventually(async () => (await approvalOf(approvalId)).log.some((e) => e.reminder === 1), 30_000, 200);
    const { decisionPageUrl } = await approvalOf(approvalId);
    expect(decisionPageUrl).toMatch(new RegExp(`^${approvals.url}/v1/decision-pages/${approvalId}\\.`));

    await page.reload();
    await field('Status').selectOption('AwaitingDecision');
    const row = page.getByRole('table', { name: 'Approvals' }).getByRole('row').filter({ hasText: 'Reviewed agent' });
    await row.getByText(/^decide by /).waitFor();
    await row.getByRole('link', { name: 'Reviewed agent' }).click();
    const timeline = page.getByRole('article', { name: 'Approval timeline' });
    await page.getByTestId('approval-outcome').getByText('Awaiting a decision').waitFor();
    await page
      .getByTestId('decision-deadline')
      .getByText(/\(in (59 min|1 h)\)$/)
      .waitFor();
    await timeline.getByText(/^Reminder 1 \(attempt 2\): HTTP 200 after \d+ ms$/).waitFor();
    await timeline.getByText(/reminders every 2 s\)$/).waitFor();
    const link = timeline.getByRole('link', { name: 'Open the decision page' });
    expect(await link.getAttribute('href')).toBe(decisionPageUrl);
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await screenshot(page, '12c-approval-deadline-reminders-decision-page-link');

    // A person opens the link (a chat message, a mail), reads the request and approves it there.
    const opened = context.waitForEvent('page');
    await link.click();
    const decisionPage = await opened;
    await decisionPage.getByRole('heading', { name: 'Reviewed agent asks for your approval' }).waitFor();
    await decisionPage.getByText('"purchaseOrder": 4711').waitFor();
    await decisionPage.getByLabel('Comment').fill('Fine, order it this week.');
    await decisionPage.getByLabel('Your name').fill('Dana');
    await screenshot(decisionPage, '12d-decision-page');
    await decisionPage.getByRole('button', { name: 'Approve' }).click();
    await decisionPage.getByRole('heading', { name: 'Approved', exact: true }).waitFor();
    await decisionPage.getByText('as decided by Dana').waitFor();
    await screenshot(decisionPage, '12e-decision-page-recorded');
    await decisionPage.close();

    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('approval-outcome').getByText('Approved by Dana').waitFor();
    const decidedEntry = timeline.locator('.timeline-decided');
    await decidedEntry.getByText('Approved by Dana').waitFor();
    await decidedEntry.getByText('Fine, order it this week.').waitFor();
    expect(await timeline.getByRole('link', { name: 'Open the decision page' }).count()).toBe(0);
    await screenshot(page, '12f-approved-on-the-decision-page');
    expect((await approvals.decision(approvalId)).decidedBy).toBe('Dana');
  });

  it('heads a 410 by what happened, shows a deadline that passed, and says "HTTP 500" once for a failed test delivery', async () => {
    receiver.handler = (req, res) =>
      void res.writeHead(req.path.startsWith('/gone') ? 410 : req.path.startsWith('/broken') ? 500 : 200).end();
    const gone = await requestApproval(approvalRequest(`${receiver.url}/gone`, {}, { agentName: 'Gone agent' }));
    const late = await requestApproval(
      approvalRequest(`${receiver.url}/late`, {}, { agentName: 'Late agent', decisionTimeoutSeconds: 2 }),
    );
    await eventually(async () => (await approvalOf(gone.approvalId)).status === 'DeliveryFailed', 30_000, 200);
    await eventually(async () => (await approvalOf(late.approvalId)).status === 'TimedOut', 30_000, 200);

    await page.reload();
    await field('Status').selectOption('DeliveryFailed');
    await page.getByRole('table', { name: 'Approvals' }).getByRole('link', { name: 'Gone agent' }).click();
    const timeline = page.getByRole('article', { name: 'Approval timeline' });
    const stopped = 'Delivery stopped: the receiver answered 410 Gone to attempt 1, so no more attempts were made';
    await page.getByTestId('approval-outcome').getByText(stopped).waitFor();
    await timeline.locator('.timeline-deliveryfailed').getByText(stopped).waitFor();
    await timeline.getByText(/^Delivery attempt 1: HTTP 410 after \d+ ms$/).waitFor();
    expect(await timeline.getByText('every attempt').count()).toBe(0);
    expect(await timeline.getByText('Delivery attempt 2').count()).toBe(0);
    await screenshot(page, '12g-approval-410-gone');

    await field('Status').selectOption('TimedOut');
    await page.getByRole('table', { name: 'Approvals' }).getByRole('link', { name: 'Late agent' }).click();
    await page.getByTestId('approval-outcome').getByText('Timed out: no decision by the deadline').waitFor();
    await page
      .getByTestId('decision-deadline')
      .getByText(/\(passed without a decision\)$/)
      .waitFor();
    await timeline
      .locator('.timeline-timedout')
      .getByText(/^Timed out: no decision by the deadline \(.+\)$/)
      .waitFor();
    await screenshot(page, '12h-approval-timed-out');

    await page.getByRole('button', { name: 'Test a webhook' }).click();
    await field('Webhook URL').fill(`${receiver.url}/broken`);
    await page.getByRole('button', { name: 'Send a test delivery' }).click();
    const outcome = page.getByRole('alert').filter({ hasText: 'Not delivered' });
    await outcome.getByText(/^Not delivered: HTTP 500 after \d+ ms$/).waitFor();
    expect(await outcome.getByText('HTTP 500').count()).toBe(1);
    await screenshot(page, '12i-webhook-test-500');
    receiver.handler = (_req, res) => void res.writeHead(200).end('ok');
  });

  it('cancels a running sync', async () => {
    await nav('Data sources');
    await page.getByRole('link', { name: 'Project documents' }).click();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
    await sim.admin.put('/faults', { latencyMs: 400 });
    try {
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByRole('button', { name: 'Cancel the sync' }).click();
      await page.getByRole('table', { name: 'Run history' }).getByText('Cancelled').first().waitFor();
    } finally {
      await sim.admin.put('/faults', { latencyMs: 0 });
    }
  });

  describe('tells the truth (issue 37: progress, held deletions, credential checks)', () => {
    it('shows no totals while the listing runs ("listing… n files found so far", never "0 of 0"), then "x of y files"', async () => {
      await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
      await sim.admin.put('/faults', { latencyMs: 300 });
      try {
        await page.getByRole('button', { name: 'Sync now' }).click();
        const progress = page.getByTestId('run-progress');
        await progress.filter({ hasText: /listing…/ }).waitFor();
        expect(await progress.textContent()).not.toMatch(/\b0 of 0\b/);
        await screenshot(page, '07d-progress-listing');
        await progress.filter({ hasText: /\d+ of \d+ files/ }).waitFor({ timeout: 60_000 });
        await screenshot(page, '07e-progress-with-totals');
      } finally {
        await sim.admin.put('/faults', { latencyMs: 0 });
      }
      await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor({ timeout: 60_000 });
      // The run's totals once ended: as many files as the run found.
      const text = String(await page.getByTestId('run-progress').textContent());
      const [, done, total] = /(\d+) of (\d+) files/.exec(text) ?? [];
      expect(Number(done)).toBe(Number(total));
      expect(Number(await page.locator('[data-count="discovered"]').textContent())).toBe(Number(total));
    });

    it("lists the files a run would delete and says why once, in an admin's words; confirming asks once more", async () => {
      const architecture = await sim.folderId('/Architecture');
      const files: Array<{ id: string; name: string }> = (
        await sim.admin.get('/files', { params: { under: architecture } })
      ).data;
      const doomed = files.filter((f) => !/gypsum|A-501|RFI/i.test(f.name)).slice(0, 3);
      for (const file of doomed) await sim.admin.delete(`/nodes/${file.id}`);
      await page.getByRole('button', { name: 'Sync now' }).click();
      const held = alertWith(page, `${doomed.length} documents kept until you confirm their deletion`);
      await held.waitFor({ timeout: 60_000 });
      const list = held.getByRole('list', { name: 'Files whose deletion is held' });
      for (const file of doomed) await list.getByText(file.name, { exact: false }).waitFor();
      // The reason once on the page, with no API path and no environment variable.
      const body = String(await page.locator('main').textContent());
      expect(body.split('no longer in the document system').length - 1).toBe(1);
      expect(body).not.toMatch(/\/v1\/|DELETE_GUARD_PERCENT|deletion\(s\)/);
      await page.getByRole('table', { name: 'Run history' }).getByText('3 deletions held until confirmed').waitFor();
      await screenshot(page, '07c-deletions-held');
      await held.getByRole('button', { name: 'Delete these documents…' }).click();
      const asked = held.getByRole('group', { name: 'Confirm the deletion' });
      await asked.getByText(`Delete ${doomed.length} documents?`).waitFor();
      await screenshot(page, '07f-confirm-deletion');
      await asked.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByText(`${doomed.length} documents deleted`).waitFor();
      // The run and the data source show how it ended, and no longer that deletions are held.
      await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
      await page.getByRole('table', { name: 'Run history' }).getByText('Succeeded').first().waitFor();
      await eventually(async () => (await page.getByText('held until confirmed').count()) === 0, 10_000, 200);
      await screenshot(page, '07g-deletions-confirmed');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor({ timeout: 60_000 });
    });

    it('keeps a credential refused on save marked invalid after a reload', async () => {
      await nav('Credentials');
      await createCredential('Alice (refused)', 'not-her-password');
      const card = () => page.getByRole('article', { name: 'Credential Alice (refused)' });
      await card().getByText('Saved, but the document system refused it').waitFor();
      await page.reload();
      await nav('Credentials');
      await card().getByText('Invalid', { exact: true }).waitFor();
      await card()
        .getByTestId('credential-check')
        .getByText(/refused by the document system/)
        .waitFor();
      await screenshot(page, '10b-credential-invalid-after-reload');
      await card().getByRole('button', { name: 'Delete' }).click();
      await card().getByRole('button', { name: 'Yes, delete' }).click();
      await card().waitFor({ state: 'detached' });
    });
  });

  it('works at 760 px: connectors and the data source fit the window', async () => {
    await page.setViewportSize({ width: 760, height: 900 });
    await nav('OAuth connectors');
    await page.getByRole('article').first().waitFor();
    await screenshot(page, '13a-760-connectors');
    await nav('Data sources');
    await page.getByRole('link', { name: 'Project documents' }).click();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
    await screenshot(page, '13b-760-data-source');
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('works in a narrow window', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await nav('Data sources');
    await page.getByRole('link', { name: 'Project documents' }).click();
    await page.getByTestId('ingestion-status').getByText('Synced', { exact: true }).waitFor();
    await screenshot(page, '13-narrow-data-source');
    await nav('Search');
    await page.getByRole('searchbox').fill('gypsum board');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('.hit').first().waitFor();
    await screenshot(page, '14-narrow-search');
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("shows the person by the token's name when it carries one, not by the user id", async () => {
    const own = await page.evaluate(`sessionStorage.getItem('console.token')`);
    const named = await signPlatformToken(TEST_JWT_SECRET, {
      tenantId,
      userId: 'admin-1',
      roles: ['admin'],
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    await page.evaluate(`sessionStorage.setItem('console.token', ${JSON.stringify(named)})`);
    await page.reload();
    await page.getByTestId('signed-in-as').getByText('Ada Lovelace · admin').waitFor();
    await page.evaluate(`sessionStorage.setItem('console.token', ${JSON.stringify(own)})`);
    await page.reload();
    await page.getByTestId('signed-in-as').getByText('admin-1 · admin').waitFor();
  });

  it('shows names from the token, ids of others short, and every id whole on hover', async () => {
    const own = await page.evaluate(`sessionStorage.getItem('console.token')`);
    const named = await signPlatformToken(TEST_JWT_SECRET, {
      tenantId,
      userId: 'admin-1',
      roles: ['admin'],
      name: 'Ada Lovelace',
    });
    await page.evaluate(`sessionStorage.setItem('console.token', ${JSON.stringify(named)})`);
    await page.reload();
    const short = (id: string) => `${id.slice(0, 4)}…${id.slice(-4)}`;
    await page.getByTestId('signed-in-as').getByText('Ada Lovelace · admin').waitFor();
    const tenant = page.getByTestId('tenant').locator('code');
    expect(await tenant.textContent()).toBe(short(tenantId));
    expect(await tenant.getAttribute('title')).toBe(`tenant ${tenantId}`);

    await nav('Data sources');
    await page.getByRole('link', { name: 'Project documents' }).click();
    const member = randomUUID();
    await field('Add a member (user id)').fill(member);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const members = page.locator('ul.members');
    await members.getByText(short(member)).waitFor();
    expect(await members.locator(`code[title="user ${member}"]`).count()).toBe(1);
    expect(await members.textContent()).not.toContain(member);
    await page.getByRole('heading', { name: 'Members' }).scrollIntoViewIfNeeded();
    await screenshot(page, '15-names-and-short-ids');

    await page.evaluate(`sessionStorage.setItem('console.token', ${JSON.stringify(own)})`);
    await page.reload();
    await page.getByTestId('signed-in-as').getByText('admin-1 · admin').waitFor();
  });

  it("shows a connector's token authentication in words, and wraps its URLs between their parts", async () => {
    await nav('OAuth connectors');
    const card = page.getByRole('article').first();
    await card.waitFor();
    await card.getByText(/^Client secret in (the request body|an HTTP Basic header)$/).waitFor();
    expect(await card.textContent()).not.toMatch(/CLIENT_SECRET_(POST|BASIC)/);
    expect(await card.locator('.url wbr').count()).toBeGreaterThan(3);
    await page.setViewportSize({ width: 760, height: 900 });
    await screenshot(page, '15b-connector-card');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('threw no error in the page along the way', () => {
    expect(pageErrors).toEqual([]);
    expect(SCREENSHOTS).toMatch(/artifacts\/console$/);
  });

  async function registerConnector(name: string, client: string, secret: string, scopes: string) {
    if (!(await page.getByRole('heading', { name: 'Register an OAuth connector' }).isVisible()))
      await page.getByRole('button', { name: 'Register connector' }).click();
    await field('Name').fill(name);
    await field('Client ID').fill(client);
    await field('Client secret').fill(secret);
    await field('Authorization endpoint').fill(`${sim.url}/oauth/authorize`);
    await field('Token endpoint').fill(`${sim.url}/oauth/token`);
    await field('Supported scopes').fill(scopes);
    await page.getByRole('button', { name: 'Register connector' }).click();
    await page.getByRole('article', { name: `Connector ${name}` }).waitFor();
  }

  async function requestApproval(body: object): Promise<{ approvalId: string }> {
    const token = await signPlatformToken(TEST_JWT_SECRET, { tenantId, userId: 'runtime', roles: ['agent-runtime'] });
    const created = await fetch(`${approvals.url}/v1/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    return (await created.json()) as { approvalId: string };
  }

  async function approvalOf(approvalId: string): Promise<ApprovalView> {
    const token = await signPlatformToken(TEST_JWT_SECRET, { tenantId, userId: 'runtime', roles: ['agent-runtime'] });
    const res = await fetch(`${approvals.url}/v1/approvals/${approvalId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ApprovalView;
  }

  async function createCredential(name: string, password: string) {
    await page.getByRole('button', { name: 'New credential' }).click();
    await field('Credential name').fill(name);
    await field('Instance URL').fill(sim.url);
    await field('Username').fill(SEED_USERS.alice.username);
    await field('Password').fill(password);
    await page.getByRole('button', { name: 'Save credential' }).click();
    await page.getByRole('article', { name: `Credential ${name}` }).waitFor();
  }
});
