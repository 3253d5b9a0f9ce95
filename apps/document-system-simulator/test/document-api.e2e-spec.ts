import axios from 'axios';
import { RunningSimulator } from '@app/testing';
import { startSimulator } from './support/start-simulator';
import { SEED_PHRASES, SEED_USERS } from '../src/store/seed';

describe('Simulated document API', () => {
  let sim: RunningSimulator;
  const api = axios.create({ validateStatus: () => true });
  let token: string;
  let session: string;
  const headers = () => ({ Authorization: `Bearer ${token}`, 'X-Session-Token': session });

  beforeAll(async () => {
    sim = await startSimulator();
    token = await sim.accessToken();
    session = (
      await api.post(`${sim.url}/api/v1/session`, SEED_USERS.alice, { headers: { Authorization: `Bearer ${token}` } })
    ).data.sessionToken;
  });
  afterAll(() => sim.close());

  it('opens a session only with a valid token and the right password', async () => {
    expect((await api.post(`${sim.url}/api/v1/session`, SEED_USERS.alice)).data).toEqual({ error: 'invalid_token' });
    const wrong = await api.post(
      `${sim.url}/api/v1/session`,
      { ...SEED_USERS.alice, password: 'nope' },
      { headers: { Authorization: `Bearer ${token}` } },
    );
    expect([wrong.status, wrong.data]).toEqual([401, { error: 'invalid_credentials' }]);
    const ok = await api.post(`${sim.url}/api/v1/session`, SEED_USERS.bob, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(ok.data).toEqual({ sessionToken: expect.any(String), expiresIn: 3600 });
  });

  it('lists the workgroups the user may see', async () => {
    const res = await api.get(`${sim.url}/api/v1/workgroups`, { headers: headers() });
    expect(res.data.items.map((w: { name: string }) => w.name)).toEqual(['Architecture', 'Structural', 'MEP']);
    expect(res.data.nextCursor).toBeNull();
  });

  it('pages through a folder of more than one page', async () => {
    const rfis = await sim.folderId('/Architecture/RFIs');
    const first = await api.get(`${sim.url}/api/v1/folders/${rfis}/children`, { headers: headers() });
    expect(first.data.items).toHaveLength(50);
    expect(first.data.items[0]).toEqual({
      kind: 'file',
      id: expect.any(String),
      name: 'RFI-001.md',
      parentId: rfis,
      size: expect.any(Number),
      mimeType: 'text/markdown',
      version: '1',
      modifiedAt: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const second = await api.get(`${sim.url}/api/v1/folders/${rfis}/children`, {
      headers: headers(),
      params: { cursor: first.data.nextCursor },
    });
    expect(second.data.items).toHaveLength(10);
    expect(second.data.nextCursor).toBeNull();
  });

  it('streams content with its type and length', async () => {
    const files = (
      await sim.admin.get('/files', { params: { under: await sim.folderId('/Architecture/Drawings/Sections') } })
    ).data;
    const res = await api.get(`${sim.url}/api/v1/files/${files[0].id}/content`, {
      headers: headers(),
      responseType: 'arraybuffer',
    });
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(Number(res.headers['content-length'])).toBe(files[0].size);
    expect(Buffer.from(res.data).subarray(0, 5).toString()).toBe('%PDF-');
    expect(Buffer.from(res.data).toString('latin1')).toContain(SEED_PHRASES.pdf);
  });

  it('answers invalid_token and invalid_session once they expire', async () => {
    const t = await sim.accessToken();
    const s = (
      await api.post(`${sim.url}/api/v1/session`, SEED_USERS.alice, { headers: { Authorization: `Bearer ${t}` } })
    ).data.sessionToken;
    await sim.admin.post('/expire', { sessions: true });
    expect(
      (
        await api.get(`${sim.url}/api/v1/workgroups`, {
          headers: { Authorization: `Bearer ${t}`, 'X-Session-Token': s },
        })
      ).data,
    ).toEqual({ error: 'invalid_session' });
    await sim.admin.post('/expire', { accessTokens: true });
    expect(
      (
        await api.get(`${sim.url}/api/v1/workgroups`, {
          headers: { Authorization: `Bearer ${t}`, 'X-Session-Token': s },
        })
      ).data,
    ).toEqual({ error: 'invalid_token' });
    token = await sim.accessToken();
    session = (
      await api.post(`${sim.url}/api/v1/session`, SEED_USERS.alice, { headers: { Authorization: `Bearer ${token}` } })
    ).data.sessionToken;
  });

  it('injects 429 with Retry-After, 503 and dropped connections in the configured shares', async () => {
    await sim.admin.put('/faults', { rate429: 0.2, rate5xx: 0.1, dropRate: 0.05, seed: 7 });
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < 200; i++) {
      const res = await api
        .get(`${sim.url}/api/v1/workgroups`, { headers: headers() })
        .catch(() => ({ status: 'dropped', headers: {} as Record<string, string> }));
      outcomes[String(res.status)] = (outcomes[String(res.status)] ?? 0) + 1;
      if (res.status === 429) expect(res.headers['retry-after']).toBe('1');
    }
    await sim.admin.put('/faults', { rate429: 0, rate5xx: 0, dropRate: 0 });
    expect(outcomes['429']).toBeGreaterThan(20);
    expect(outcomes['503']).toBeGreaterThan(8);
    expect(outcomes.dropped).toBeGreaterThan(2);
    expect(outcomes['200']).toBeGreaterThan(100);
  });

  it('shows a user without workgroup access no workgroups', async () => {
    const s = (
      await api.post(`${sim.url}/api/v1/session`, SEED_USERS.nobody, { headers: { Authorization: `Bearer ${token}` } })
    ).data.sessionToken;
    const res = await api.get(`${sim.url}/api/v1/workgroups`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Session-Token': s },
    });
    expect(res.data).toEqual({ items: [], nextCursor: null });
  });
});
