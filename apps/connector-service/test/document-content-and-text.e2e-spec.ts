import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { SEED_USERS } from '../../document-system-simulator/src/store/seed';
import { BlobStore } from '../src/blobs/blob-store';
import { FsBlobStore } from '../src/blobs/fs-blob-store';
import { TEXT_SLICE_CHARS } from '../src/documents/documents.service';
import { dataSourceSelecting } from './support/data-source-on';
import { connectorOnSimulator } from './support/connector-on-simulator';
import { syncToEnd, syncToSearchable } from './support/sync-helpers';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;

/** The file blob store; while `gate` is set, an open waits for it: the moment a sync may replace the blob. */
class GatedBlobStore extends FsBlobStore {
  gate: Promise<void> | null = null;
  reached: (() => void) | null = null;
  async open(sha256: string): Promise<Readable | null> {
    if (this.gate) {
      this.reached?.();
      await this.gate;
    }
    return super.open(sha256);
  }
}

/** Files of `dir` this process holds open. */
function openFilesIn(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });
}

/** The raw bytes of an answer, whatever its type. */
const raw = (res: request.Test) =>
  res.buffer(true).parse((stream, done) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('Reading a document’s file and text', () => {
  let caller: TestCaller;
  const blobDir = join(tmpdir(), `blobs-${randomBytes(6).toString('hex')}`);
  const blobs = new GatedBlobStore(blobDir);
  const logLines: string[] = [];
  const serverSockets: net.Socket[] = [];
  const clients: net.Socket[] = [];
  const stack = connectorOnSimulator({
    overrides: [[BlobStore, blobs]],
    env: { BLOB_DIR: blobDir, EXTRACTION_WORKERS: 1, LOG_LEVEL: 'info' },
    logLines,
    beforeClose: () => clients.forEach((c) => c.destroy()),
  });
  const { http: api } = stack;

  beforeAll(async () => {
    stack.sut.app.getHttpServer().on('connection', (socket: net.Socket) => serverSockets.push(socket));
    caller = await testCaller({ roles: ['admin'] });
  });

  /** A data source of one new folder holding `files`, synced; returns its id and its documents' ids by name. */
  async function synced(files: Array<Record<string, unknown>>) {
    const folder = await stack.sim.admin.post('/folders', {
      parentId: await stack.sim.folderId('/Structural'),
      name: `f-${randomBytes(4).toString('hex')}`,
    });
    const fileIds: string[] = [];
    for (const file of files)
      fileIds.push((await stack.sim.admin.post('/files', { parentId: folder.data.id, ...file })).data.id);
    const dataSourceId = await dataSourceSelecting(stack.sut.app, stack.sim, caller, {
      login: SEED_USERS.alice,
      connectionId: stack.connections.connect(caller),
      include: [folder.data.id],
    });
    await syncToSearchable(stack.sut.app, caller, dataSourceId);
    const rows: Array<{ id: string }> = await stack.sut.db.query(
      `SELECT id FROM connector.documents WHERE "dataSourceId" = $1 ORDER BY name`,
      [dataSourceId],
    );
    return { dataSourceId, fileIds, documentIds: rows.map((r) => r.id) };
  }

  it('lets a user cancel a download: its file is released and no error is logged', async () => {
    const {
      documentIds: [documentId],
    } = await synced([
      { name: 'big.bin', mimeType: 'application/octet-stream', generate: { format: 'text', size: 32 * MiB } },
    ]);
    const socket = net.connect(Number(new URL(stack.sut.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `GET /v1/documents/${documentId}/content HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: ${caller.auth.Authorization}\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once('data', resolve));
    socket.pause();
    await sleep(300);
    expect(openFilesIn(blobDir)).toHaveLength(1);
    const linesBefore = logLines.length;
    socket.destroy(); // the user cancels the download
    await sleep(1_500);

    expect(openFilesIn(blobDir)).toEqual([]);
    expect(logLines.slice(linesBefore).filter((line) => /Unexpected error|"level":50/.test(line))).toEqual([]);
  }, 90_000);

  it('serves one whole version, with its own name, type and length, to a download racing the sync that replaces it', async () => {
    const {
      dataSourceId,
      fileIds: [fileId],
      documentIds: [documentId],
    } = await synced([{ name: 'notes.txt', text: 'version one' }]);
    const [{ contentSha256: first }] = await stack.sut.db.query(
      `SELECT "contentSha256" FROM connector.documents WHERE id = $1`,
      [documentId],
    );

    let release!: () => void;
    blobs.gate = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (blobs.reached = resolve));
    const answered = raw(api().get(`/v1/documents/${documentId}/content`).set(caller.auth)).then((res) => res);
    await reached; // the document was read (version one); its blob is about to be opened
    blobs.gate = null;
    await stack.sim.admin.patch(`/files/${fileId}`, {
      text: 'version two, a little longer',
      mimeType: 'text/markdown',
    });
    await stack.sim.admin.post(`/nodes/${fileId}/relocate`, { name: 'notes.md' });
    expect((await syncToEnd(stack.sut.app, caller, dataSourceId)).counts.updated).toBe(1);
    expect(await blobs.exists(first)).toBe(false); // version one's blob was collected
    release();

    const res = await answered;
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('version two, a little longer');
    expect(res.headers).toMatchObject({
      'content-type': 'text/markdown',
      'content-length': String(res.body.length),
      'content-disposition': `attachment; filename="notes.md"; filename*=UTF-8''notes.md`,
    });
  }, 90_000);

  it('answers 404 CONTENT_NOT_STORED, not 500, for a document whose stored file is gone', async () => {
    const {
      documentIds: [documentId],
    } = await synced([{ name: 'lost.txt', text: 'lost' }]);
    const [{ contentSha256 }] = await stack.sut.db.query(
      `SELECT "contentSha256" FROM connector.documents WHERE id = $1`,
      [documentId],
    );
    await blobs.delete(contentSha256);

    const res = await api().get(`/v1/documents/${documentId}/content`).set(caller.auth).expect(404);
    expect(res.body).toMatchObject({ statusCode: 404, code: 'CONTENT_NOT_STORED' });
  }, 90_000);

  it('answers the text as the JSON it always was, byte for byte, with its type, length and ETag', async () => {
    const {
      documentIds: [documentId],
    } = await synced([{ name: 'odd "name" é.txt', text: 'short' }]);
    // Quotes, backslashes, controls, accents and characters outside the BMP, over more than two slices, and pages.
    const sample = 'é😀 "quoted" back\\slash\ttab\u0001 line\u2028end\n';
    await stack.sut.db.query(
      `UPDATE connector.documents SET text = $2, "pageStarts" = '{0,7}', "pageEnds" = '{7,40}' WHERE id = $1`,
      [documentId, sample.repeat(Math.ceil((2.2 * TEXT_SLICE_CHARS) / [...sample].length))],
    );
    const [doc] = await stack.sut.db.query(
      `SELECT "dataSourceId", name, path, "extractionStatus", "extractionError", text FROM connector.documents WHERE id = $1`,
      [documentId],
    );
    const expected = JSON.stringify({
      documentId,
      dataSourceId: doc.dataSourceId,
      name: doc.name,
      path: doc.path,
      extraction: { status: doc.extractionStatus, error: doc.extractionError },
      text: doc.text,
      pages: [
        { page: 1, start: 0, end: 7 },
        { page: 2, start: 7, end: 40 },
      ],
    });

    const res = await raw(api().get(`/v1/documents/${documentId}/text`).set(caller.auth)).expect(200);
    expect(res.body.toString()).toBe(expected);
    expect(res.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(expected)),
      etag: expect.stringMatching(/^W\/".+"$/),
    });
    await api()
      .get(`/v1/documents/${documentId}/text`)
      .set({ ...caller.auth, 'If-None-Match': res.headers.etag })
      .expect(304);
  }, 90_000);

  it('cuts a text answer short, never mixing two versions, when the text changes while it is sent', async () => {
    const {
      documentIds: [documentId],
    } = await synced([{ name: 'changing.txt', text: 'short' }]);
    // More slices than the sockets' buffers hold, so that most are read after the change.
    const length = 16 * TEXT_SLICE_CHARS;
    await stack.sut.db.query(`UPDATE connector.documents SET text = repeat('a', $2) WHERE id = $1`, [
      documentId,
      length,
    ]);
    const socket = net.connect(Number(new URL(stack.sut.url).port), '127.0.0.1');
    clients.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `GET /v1/documents/${documentId}/text HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: ${caller.auth.Authorization}\r\n\r\n`,
    );
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (Buffer.concat(chunks).includes('"text":"aaa')) resolve();
      }),
    );
    socket.pause(); // with the first slice on its way
    const linesBefore = logLines.length;
    await stack.sut.db.query(`UPDATE connector.documents SET text = repeat('b', $2) WHERE id = $1`, [
      documentId,
      length,
    ]);
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));

    const answer = Buffer.concat(chunks).toString();
    const announced = Number(/content-length: (\d+)/i.exec(answer)?.[1]);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(Buffer.byteLength(body)).toBeLessThan(announced);
    // Only the first version's letters after the text's start (a regular expression over megabytes overflows the stack).
    const sent = body.slice(body.indexOf('"text":"') + '"text":"'.length);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.replaceAll('a', '')).toBe('');
    expect(logLines.slice(linesBefore).filter((line) => /Unexpected error|"level":50/.test(line))).toEqual([]);
  }, 90_000);

  it('keeps a piece, not the whole text, for each reader that stops reading a large text', async () => {
    const {
      documentIds: [documentId],
    } = await synced([{ name: 'specification.txt', generate: { format: 'text', size: 12 * MiB } }]);
    const [{ length }] = await stack.sut.db.query(
      `SELECT octet_length(text) AS length FROM connector.documents WHERE id = $1`,
      [documentId],
    );
    expect(Number(length)).toBeGreaterThan(8 * MiB);

    for (let i = 0; i < 10; i++) {
      const socket = net.connect(Number(new URL(stack.sut.url).port), '127.0.0.1');
      clients.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `GET /v1/documents/${documentId}/text HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `Authorization: ${caller.auth.Authorization}\r\n\r\n`,
      );
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause(); // and never reads on
    }
    await sleep(2_000);

    // What the server holds, not yet handed to the kernel, for these ten readers: once 120 MiB, the whole text each.
    const held = serverSockets.reduce((sum, s) => sum + (s.destroyed ? 0 : s.writableLength), 0);
    expect(held).toBeLessThan(2 * MiB);
  }, 120_000);
});
