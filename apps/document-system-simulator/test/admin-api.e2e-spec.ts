import axios from 'axios';
import { RunningSimulator } from '@app/testing';
import { startSimulator } from './support/start-simulator';

describe('Simulator admin API: validated bodies, documented in OpenAPI', () => {
  let sim: RunningSimulator;
  const http = axios.create({ validateStatus: () => true });
  const errorBody = (status: number, code: string) =>
    expect.objectContaining({
      statusCode: status,
      error: expect.any(String),
      code,
      message: expect.any(String),
      details: expect.any(Array),
    });
  const fields = (body: { details: Array<{ field: string }> }) => body.details.map((d) => d.field);

  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());

  it('answers 400 naming each missing field of a new file, not a 404 for "folder undefined"', async () => {
    const res = await http.post(`${sim.url}/admin/files`, {});
    expect(res.status).toBe(400);
    expect(res.data).toEqual(errorBody(400, 'VALIDATION_FAILED'));
    expect(fields(res.data)).toEqual(expect.arrayContaining(['parentId', 'name']));
    expect(res.data.message).toContain('parentId');
  });

  it('lists the files under a folder by `under` or `folderId`, and answers 400 naming `under` without either', async () => {
    const rfis = await sim.folderId('/Architecture/RFIs');
    const byUnder = await http.get(`${sim.url}/admin/files`, { params: { under: rfis } });
    expect(byUnder.status).toBe(200);
    expect(byUnder.data.length).toBeGreaterThan(0);
    expect((await http.get(`${sim.url}/admin/files`, { params: { folderId: rfis } })).data).toEqual(byUnder.data);
    const neither = await http.get(`${sim.url}/admin/files`);
    expect(neither.status).toBe(400);
    expect(neither.data).toEqual(errorBody(400, 'VALIDATION_FAILED'));
    expect(fields(neither.data)).toEqual(['under']);
  });

  it('asks for the content of a file when none of text, base64 or generate is given', async () => {
    const parentId = await sim.folderId('/Architecture');
    const res = await http.post(`${sim.url}/admin/files`, { parentId, name: 'empty.txt' });
    expect([res.status, res.data.code, fields(res.data)]).toEqual([400, 'VALIDATION_FAILED', ['content']]);
    const bad = await http.post(`${sim.url}/admin/files`, {
      parentId,
      name: 'gen.bin',
      generate: { format: 'zip', size: -1 },
    });
    expect(fields(bad.data)).toEqual(expect.arrayContaining(['generate.format', 'generate.size']));
    expect(
      (await http.post(`${sim.url}/admin/files`, { parentId, name: 'ok.txt', text: 'fine', colour: 'red' })).data.code,
    ).toBe('VALIDATION_FAILED');
    expect((await http.post(`${sim.url}/admin/files`, { parentId, name: 'ok.txt', text: 'fine' })).status).toBe(201);
  });

  it('answers 404 with the contract body for an unknown folder, and 400 for a move into its own subtree or of a workgroup root', async () => {
    const missing = await http.post(`${sim.url}/admin/folders`, { parentId: 'fld-nope', name: 'x' });
    expect([missing.status, missing.data]).toEqual([404, errorBody(404, 'NOT_FOUND')]);
    const drawings = await sim.folderId('/Architecture/Drawings');
    const level1 = await sim.folderId('/Architecture/Drawings/Level 1');
    const cycle = await http.post(`${sim.url}/admin/nodes/${drawings}/relocate`, { parentId: level1 });
    expect([cycle.status, cycle.data.code]).toEqual([400, 'VALIDATION_FAILED']);
    const root = await http.post(`${sim.url}/admin/nodes/${await sim.folderId('/Architecture')}/relocate`, {
      name: 'Renamed',
    });
    expect([root.status, root.data.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('rejects faults and settings out of range', async () => {
    expect((await http.put(`${sim.url}/admin/faults`, { rate429: 2 })).data).toEqual(
      errorBody(400, 'VALIDATION_FAILED'),
    );
    expect((await http.put(`${sim.url}/admin/settings`, { pageSize: 0 })).status).toBe(400);
    expect((await http.post(`${sim.url}/admin/oauth/clients`, { clientSecrets: ['s'] })).data.details).toEqual([
      expect.objectContaining({ field: 'clientId' }),
    ]);
  });

  it('documents every admin body and a summary of every admin operation in OpenAPI', async () => {
    const doc = (await http.get(`${sim.url}/docs/openapi.json`)).data;
    const addFile = doc.paths['/admin/files'].post;
    expect(addFile.summary).toEqual(expect.any(String));
    const ref = addFile.requestBody.content['application/json'].schema.$ref.split('/').pop();
    expect(doc.components.schemas[ref]).toMatchObject({
      required: expect.arrayContaining(['parentId', 'name']),
      properties: expect.objectContaining({ text: expect.any(Object), generate: expect.any(Object) }),
    });
    for (const [path, operations] of Object.entries(
      doc.paths as Record<string, Record<string, { summary?: string; requestBody?: unknown }>>,
    )) {
      if (!path.startsWith('/admin')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        expect(`${method} ${path}: ${operation.summary ?? ''}`).toMatch(/: \S/);
        if (['post', 'put', 'patch'].includes(method) && !/reset$|revoke-refresh-tokens$/.test(path))
          expect(`${method} ${path}: ${operation.requestBody ? 'body' : 'none'}`).toMatch(/body$/);
      }
    }
  });
});
