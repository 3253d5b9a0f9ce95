import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { HttpPeer, RunningSimulator, testCaller, TestCaller } from '@app/testing';
import { startSimulator } from '../../document-system-simulator/test/support/start-simulator';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { ConnectionTokens } from '../../connector-service/src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../../connector-service/test/support/connector-app';
import { SimulatorConnections } from '../../connector-service/test/support/simulator-connections';
import { alertWith, hasChromium, launchChromium } from './support/browser';
import { freshConsoleBuild } from './support/console-build';

const describeInBrowser = hasChromium ? describe : describe.skip;

/**
 * A URL resolves "." and ".." path segments (and their %2E spellings) away, and a browser keeps %2F as
 * it is: ids and paths that would name another resource than the one meant, in Chromium.
 */
describeInBrowser('The console in Chromium: dot segments and encoded slashes in its URLs', () => {
  let sim: RunningSimulator;
  let connector: ConnectorTestApp;
  let browser: Browser;
  let admin: TestCaller;
  let framer: HttpPeer;
  let credentialId: string;
  let connectionId: string;
  const http = () => request(connector.app.getHttpServer());

  beforeAll(async () => {
    const consoleDir = freshConsoleBuild();
    sim = await startSimulator();
    const connections = new SimulatorConnections(sim);
    connector = await startConnectorApp({
      env: { CONSOLE_DIR: consoleDir },
      overrides: [[ConnectionTokens, connections]],
    });
    admin = await testCaller({ roles: ['admin'] });
    credentialId = (
      await http()
        .post('/v1/credentials')
        .set(admin.auth)
        .send({ name: 'Sim', type: 'DocumentSystem', instanceUrl: sim.url, ...SEED_USERS.alice, scope: 'Tenant' })
        .expect(201)
    ).body.id;
    connectionId = connections.connect(admin);
    // Another site's page that frames whatever URL its query names.
    framer = await new HttpPeer((req, res) => {
      const src = decodeURIComponent(req.path.replace(/^\/\?src=/, ''));
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><iframe src="${src}"></iframe>`);
    }).start();
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await framer?.stop();
    await connector?.close();
    await sim?.close();
  });

  async function newPage(signedIn = true): Promise<Page> {
    const context = await browser.newContext();
    if (signedIn)
      await context.addInitScript(`sessionStorage.setItem('console.token', ${JSON.stringify(admin.token)})`);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return page;
  }

  it('"Remove" takes away a member with dots in its id, and refuses one whose id is "..": the data source stays', async () => {
    const dataSourceId = (
      await http()
        .post(`/v1/projects/${randomUUID()}/data-sources`)
        .set(admin.auth)
        .send({ name: 'Project documents', credentialId, connectionId })
        .expect(201)
    ).body.id;
    await http()
      .post(`/v1/data-sources/${dataSourceId}/members`)
      .set(admin.auth)
      .send({ userId: 'first.last' })
      .expect(201);
    // The API refuses ".." now; a member added before it did is still there.
    await connector.db.query(
      `INSERT INTO connector.data_source_members ("dataSourceId", "userId", "addedBy") VALUES ($1, '..', 'seed')`,
      [dataSourceId],
    );
    const page = await newPage();
    await page.goto(`${connector.url}/console/data-sources/${dataSourceId}`);
    const member = (userId: string) =>
      page.locator('ul.members li').filter({ has: page.locator(`code[title="user ${userId}"]`) });

    await member('first.last').getByRole('button', { name: 'Remove' }).click();
    await member('first.last').waitFor({ state: 'detached' });
    await member('..').getByRole('button', { name: 'Remove' }).click();
    await alertWith(page, 'cannot be put in a URL').waitFor();

    const after = await http().get(`/v1/data-sources/${dataSourceId}`).set(admin.auth);
    const members = await http().get(`/v1/data-sources/${dataSourceId}/members`).set(admin.auth);
    expect({
      dataSource: after.status,
      members: (members.body as Array<{ userId: string }>)?.map?.((m) => m.userId).sort(),
    }).toEqual({ dataSource: 200, members: ['..', admin.userId].sort() });
    await page.context().close();
  });

  it('refuses to be framed by another site under every name of its page (frame-ancestors), %2F in the path too', async () => {
    const framed: Record<string, boolean> = {};
    for (const path of ['/console/', '/console/x%2f..%2findex.html', '/console/assets%2F..%2Findex.html']) {
      const page = await newPage(false);
      await page.goto(`${framer.url}/?src=${encodeURIComponent(connector.url + path)}`);
      await page.waitForTimeout(2500);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      // The console's sign-in page says its title; a refused frame shows Chromium's error page instead.
      framed[path] = frame
        ? await frame
            .getByRole('heading', { name: 'Connector console' })
            .first()
            .waitFor({ timeout: 3000 })
            .then(() => true)
            .catch(() => false)
        : false;
      await page.context().close();
    }
    expect(framed).toEqual({
      '/console/': false,
      '/console/x%2f..%2findex.html': false,
      '/console/assets%2F..%2Findex.html': false,
    });
  });
});
