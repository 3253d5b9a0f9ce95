import { DataSource } from 'typeorm';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { DocumentTextsRepository } from '../src/documents/document-texts.repository';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToSearchable } from './support/sync-helpers';

interface TextAnswer {
  status: number;
  etag: string;
  body: { name: string; path: string; text: string; extraction: { status: string } };
}

/**
 * GET /v1/documents/{id}/text names the row version it serves in its ETag: a client that keeps the answer and
 * asks again with If-None-Match gets 304 and goes on showing what it kept. So the answer's name, path and
 * status must be those of the version its ETag names, even when a sync writes the document while the answer
 * is being put together.
 */
describe('The text answer and its ETag', () => {
  const stack = connectorOnSimulator();
  let caller: TestCaller;
  let documentId: string;
  const { http: api } = stack;

  async function readText(headers: Record<string, string> = {}): Promise<TextAnswer> {
    const res = await api()
      .get(`/v1/documents/${documentId}/text`)
      .set({ ...caller.auth, ...headers });
    return { status: res.status, etag: res.headers.etag as string, body: res.body };
  }

  /** Runs `write` (as a sync would) once, just before the answer reads the document's text measures. */
  function writeBeforeTheTextIsMeasured(write: () => Promise<unknown>): void {
    const texts = stack.sut.app.get(DocumentTextsRepository);
    const measure = texts.stored.bind(texts);
    jest.spyOn(texts, 'stored').mockImplementationOnce(async (...args: Parameters<typeof measure>) => {
      await write();
      return measure(...args);
    });
  }

  beforeAll(async () => {
    caller = await testCaller({ roles: ['admin'] });
    const folder = (
      await stack.sim.admin.post('/folders', { parentId: await stack.sim.folderId('/Structural'), name: 'Etags' })
    ).data.id;
    await stack.sim.admin.post('/files', { parentId: folder, name: 'report-1.txt', text: 'the text of the report' });
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folder],
    });
    await syncToSearchable(stack.sut.app, caller, dataSourceId);
    const tree = (await api().get(`/v1/data-sources/${dataSourceId}/tree`).query({ folderId: folder }).set(caller.auth))
      .body as { files: Array<{ documentId: string }> };
    documentId = tree.files[0].documentId;
  });

  it('serves the name of the version its ETag names when a sync renames the document meanwhile', async () => {
    const before = await readText();
    expect(before.body.name).toBe('report-1.txt');
    // A rename of the same length keeps the answer's length: only the row version tells the two apart.
    writeBeforeTheTextIsMeasured(() =>
      stack.sut.app.get(DataSource).query(
        `UPDATE connector.documents SET name = 'report-2.txt', path = replace(path, 'report-1.txt', 'report-2.txt'),
             "updatedAt" = now() WHERE id = $1`,
        [documentId],
      ),
    );
    const during = await readText();
    expect(during.status).toBe(200);
    expect(during.etag).not.toBe(before.etag);

    const now = await readText();
    expect(now.body).toMatchObject({ name: 'report-2.txt', path: expect.stringMatching(/\/report-2\.txt$/) });
    // The answer kept under its ETag is what that version holds: a revalidation's 304 keeps the right name.
    expect((await readText({ 'If-None-Match': during.etag })).status).toBe(now.etag === during.etag ? 304 : 200);
    expect({ etag: during.etag, body: during.body }).toEqual({ etag: now.etag, body: now.body });
  });

  it('serves the extraction status of the version its ETag names when a sync stores a new version meanwhile', async () => {
    const before = await readText();
    expect(before.body.extraction.status).toBe('Succeeded');
    // {"status":"Failed","error":"Stuck"} is as long as {"status":"Succeeded","error":null}: the same answer length.
    writeBeforeTheTextIsMeasured(() =>
      stack.sut.app.get(DataSource).query(
        `UPDATE connector.documents SET "extractionStatus" = 'Failed', "extractionError" = 'Stuck', "updatedAt" = now()
           WHERE id = $1`,
        [documentId],
      ),
    );
    const during = await readText();
    expect(during.status).toBe(200);
    const now = await readText();
    expect(now.body.extraction).toEqual({ status: 'Failed', error: 'Stuck' });
    expect((await readText({ 'If-None-Match': during.etag })).status).toBe(now.etag === during.etag ? 304 : 200);
    expect({ etag: during.etag, body: during.body }).toEqual({ etag: now.etag, body: now.body });
  });
});
