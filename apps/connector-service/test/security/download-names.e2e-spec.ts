import request from 'supertest';
import { testCaller, TestCaller } from '@app/testing';
import { ConnectionTokens } from '../../src/document-system/connection-tokens.port';
import { ConnectorTestApp, startConnectorApp } from '../support/connector-app';
import { hostileConnections, hostileDataSource } from '../support/hostile-connections';
import { syncToEnd } from '../support/sync-helpers';
import { HostileDocumentSystem } from './hostile-document-system';

/** The parser Express itself uses for Content-Disposition (a dependency of express; it ships no types). */
const { parse } = require('content-disposition') as {
  parse: (header: string) => { type: string; parameters: Record<string, string> };
};

/**
 * A document's download names its file as the document system named it, in a Content-Disposition header
 * that a standard parser reads, whatever characters the name holds, and never with a folder in it.
 */
describe('The file name of a download', () => {
  let hostile: HostileDocumentSystem;
  let sut: ConnectorTestApp;
  let caller: TestCaller;
  const connections = hostileConnections();
  const http = () => request(sut.app.getHttpServer());
  const names = ["O'Brien (draft) *v2*!.txt", '../../x', 'a/b.txt', 'a\\b.txt'];
  const contentDispositions = new Map<string, string>();

  beforeAll(async () => {
    hostile = await new HostileDocumentSystem([
      {
        id: 'names',
        name: 'Names',
        files: names.map((name, i) => ({ id: `file-${i}`, name, content: { kind: 'bytes', body: Buffer.from(name) } })),
      },
    ]).start();
    sut = await startConnectorApp({ overrides: [[ConnectionTokens, connections]] });
    caller = await testCaller({ roles: ['admin'] });
    const dataSourceId = await hostileDataSource(sut.app, connections, caller, hostile.url, ['names']);
    expect(await syncToEnd(sut.app, caller, dataSourceId, 30_000)).toMatchObject({ status: 'Succeeded' });
    const tree = await http()
      .get(`/v1/data-sources/${dataSourceId}/tree`)
      .query({ folderId: 'names' })
      .set(caller.auth);
    for (const file of tree.body.files as Array<{ documentId: string; name: string }>) {
      const res = await http().get(`/v1/documents/${file.documentId}/content`).set(caller.auth).expect(200);
      contentDispositions.set(file.name, res.headers['content-disposition']);
    }
  });
  afterAll(async () => {
    await sut.close();
    await hostile.stop();
  });

  it("gives the exact name of a file whose name holds ' ( ) * !, percent-encoded as RFC 8187 has it", () => {
    const header = contentDispositions.get(names[0])!;
    expect(parse(header)).toEqual({ type: 'attachment', parameters: { filename: names[0] } });
  });

  it.each(names.slice(1))('gives %s without a slash or a backslash, in either form of the name', (name) => {
    const header = contentDispositions.get(name)!;
    expect(header).not.toMatch(/[/\\]|%2F|%5C/i);
    expect(parse(header).parameters.filename).toBe(name.replace(/[/\\]/g, '_'));
  });
});
