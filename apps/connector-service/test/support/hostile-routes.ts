import type { RunningSimulator } from '@app/testing';
import { SEED_USERS } from '../../../document-system-simulator/src/store/seed';
import { providerBody } from './oauth-flow';

/**
 * The connector's HTTP surface as the hostile-inputs spec sends to it: every route with an id in its path, every
 * query string, every body with the fields a client may send (CONTRACT.md).
 */

/** The ids of what the caller owns, made once, that the routes below are sent against. */
export interface Owned {
  projectId: string;
  providerId: string;
  credentialId: string;
  dataSourceId: string;
  syncRunId: string;
  documentId: string;
  connectionId: string;
}

export type Path = (o: Owned, id?: string) => string;

export const JSON_TYPE = { 'content-type': 'application/json' };

export const PLACEHOLDER: Owned = {
  projectId: '{projectId}',
  providerId: '{providerId}',
  credentialId: '{credentialId}',
  dataSourceId: '{dataSourceId}',
  syncRunId: '{syncRunId}',
  documentId: '{documentId}',
  connectionId: '{connectionId}',
};

/** Every route of the contract that takes an id in its path, with the id where `id` is given. */
export const ID_ROUTES: Array<[string, Path]> = [
  ['GET', (o, id = o.providerId) => `/v2/OAuth/providers/${id}`],
  ['PUT', (o, id = o.providerId) => `/v2/OAuth/providers/${id}`],
  ['DELETE', (o, id = o.providerId) => `/v2/OAuth/providers/${id}`],
  ['DELETE', (o, id = o.connectionId) => `/v2/OAuth/connections/${id}`],
  ['GET', (o, id = o.credentialId) => `/v1/credentials/${id}`],
  ['PUT', (o, id = o.credentialId) => `/v1/credentials/${id}`],
  ['DELETE', (o, id = o.credentialId) => `/v1/credentials/${id}`],
  ['POST', (o, id = o.credentialId) => `/v1/credentials/${id}/validate`],
  ['GET', (o, id = o.projectId) => `/v1/projects/${id}/data-sources`],
  ['POST', (o, id = o.projectId) => `/v1/projects/${id}/data-sources`],
  ['GET', (o, id = o.dataSourceId) => `/v1/data-sources/${id}`],
  ['PATCH', (o, id = o.dataSourceId) => `/v1/data-sources/${id}`],
  ['DELETE', (o, id = o.dataSourceId) => `/v1/data-sources/${id}`],
  ['GET', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/members`],
  ['POST', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/members`],
  ['DELETE', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/members/someone`],
  ['GET', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/folders`],
  ['PUT', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/selection`],
  ['POST', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/sync`],
  ['GET', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/sync-runs`],
  ['GET', (o, id = o.dataSourceId) => `/v1/data-sources/${id}/tree`],
  ['GET', (o, id = o.syncRunId) => `/v1/sync-runs/${id}`],
  ['POST', (o, id = o.syncRunId) => `/v1/sync-runs/${id}/cancel`],
  ['GET', (o, id = o.syncRunId) => `/v1/sync-runs/${id}/events`],
  ['POST', (o, id = o.syncRunId) => `/v1/sync-runs/${id}/confirm-deletions`],
  ['GET', (o, id = o.syncRunId) => `/v1/sync-runs/${id}/files`],
  ['GET', (o, id = o.documentId) => `/v1/documents/${id}`],
  ['GET', (o, id = o.documentId) => `/v1/documents/${id}/content`],
  ['GET', (o, id = o.documentId) => `/v1/documents/${id}/text`],
  ['GET', (o, id = o.projectId) => `/v1/projects/${id}/search?q=steel`],
  ['GET', (o, id = o.projectId) => `/v1/projects/${id}/passages?q=steel`],
];

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Query strings a client may send that no page handed out, per route with a query. */
export const QUERIES: Array<[string, Path, string[]]> = [
  [
    'the folder picker',
    (o) => `/v1/data-sources/${o.dataSourceId}/folders`,
    [
      'parentId=%00',
      'parentId=a&parentId=b',
      'cursor=a&cursor=b',
      'cursor=%00',
      'parentId=%ED%A0%80',
      `cursor=${'c'.repeat(9_000)}`,
    ],
  ],
  [
    'the tree',
    (o) => `/v1/data-sources/${o.dataSourceId}/tree`,
    [
      'folderId=a&folderId=b',
      'folderId=%00',
      'limit=1&limit=2',
      'limit=1e309',
      'limit=-0',
      'limit=9007199254740993',
      'cursor=%%%',
      'cursor=bm90IGpzb24',
      `cursor=${cursorOf({})}`,
      `cursor=${cursorOf(['files', 'a', 'not-a-uuid'])}`,
      `cursor=${cursorOf(['folders', 'a\u0000', 'b'])}`,
      `cursor=${Buffer.from('["folders",1e309,null]').toString('base64url')}`,
      `cursor=${cursorOf(['folders', { a: 1 }, []])}`,
    ],
  ],
  [
    "a run's files",
    (o) => `/v1/sync-runs/${o.syncRunId}/files`,
    [
      'outcome=Added&outcome=Failed',
      'outcome=%00',
      'limit=-0',
      'limit=9007199254740993',
      'cursor=%E0%A4%A',
      'cursor=bm90IGpzb24',
      `cursor=${cursorOf(['after', { a: 1 }])}`,
      `cursor=${cursorOf(['after', 'x\u0000'])}`,
      `cursor=${cursorOf(['before', 'x'])}`,
    ],
  ],
  ['search', (o) => `/v1/projects/${o.projectId}/search`, searchQueries('cursor=-0')],
  ['passages', (o) => `/v1/projects/${o.projectId}/passages`, searchQueries('maxChars=-0')],
];

/** Full-text and path-prefix spellings that break a naive tsquery or LIKE pattern, and repeated names. */
function searchQueries(extra: string): string[] {
  return [
    'q=steel&q=beam',
    'q=%00',
    'q=%E0%A4%A',
    ...["'", '\\', ':*', '!!', '(', '&|', '<->', '"unterminated', '-', '*', '%', '_', 'a:b', '%EF%BF%BF'].map(
      (q) => `q=${encodeURIComponent(q).replace(/%25EF%25BF%25BF/, '%EF%BF%BF')}`,
    ),
    ...['\\', '%', '_', '%\\', '/a\\'].map((prefix) => `q=steel&pathPrefix=${encodeURIComponent(prefix)}`),
    'q=steel&dataSourceId=%00',
    'q=steel&dataSourceId=a&dataSourceId=b',
    'q=steel&limit=1&limit=2',
    'q=steel&limit=9007199254740993',
    `q=steel&${extra}`,
    `q=${'w'.repeat(600)}`,
  ];
}

const PROVIDER_FIELDS = [
  'name',
  'provider',
  'clientId',
  'clientSecret',
  'tokenEndpoint',
  'revokeEndpoint',
  'supportedScopes',
  'supportedScopes[0]',
  'behaviour',
  'behaviour.tokenEndpointAuthMethod',
];
const CREDENTIAL_FIELDS = ['name', 'type', 'instanceUrl', 'username', 'password', 'scope', 'projectId'];
const credentialAt = (sim: RunningSimulator, o: Owned) => ({
  name: 'Sim',
  type: 'DocumentSystem',
  instanceUrl: sim.url,
  ...SEED_USERS.alice,
  scope: 'Project',
  projectId: o.projectId,
});

/** Every route that reads a body: a valid body for the caller's things, and the fields a client may send. */
export const BODY_ROUTES: Array<[string, Path, (o: Owned, sim: RunningSimulator) => unknown, string[]]> = [
  ['POST', () => '/v2/OAuth/providers', (_o, sim) => providerBody(sim), PROVIDER_FIELDS],
  ['PUT', (o) => `/v2/OAuth/providers/${o.providerId}`, (_o, sim) => providerBody(sim), PROVIDER_FIELDS],
  ['POST', () => '/v2/OAuth/authorize', (o) => ({ providerId: o.providerId }), ['providerId']],
  ['POST', () => '/v1/credentials', (o, sim) => credentialAt(sim, o), CREDENTIAL_FIELDS],
  ['PUT', (o) => `/v1/credentials/${o.credentialId}`, (o, sim) => credentialAt(sim, o), CREDENTIAL_FIELDS],
  [
    'POST',
    (o) => `/v1/credentials/${o.credentialId}/validate`,
    (o) => ({ connectionId: o.connectionId }),
    ['connectionId'],
  ],
  [
    'POST',
    (o) => `/v1/projects/${o.projectId}/data-sources`,
    (o, sim) => ({
      name: 'Docs',
      credential: credentialAt(sim, o),
      connectionId: o.connectionId,
      selection: { include: ['f1'], exclude: [] },
      schedule: { intervalMinutes: 60 },
    }),
    [
      'name',
      'connectionId',
      'credential',
      'credential.name',
      'credential.password',
      'credential.projectId',
      'selection',
      'selection.include',
      'selection.include[0]',
      'schedule',
      'schedule.intervalMinutes',
    ],
  ],
  [
    'PATCH',
    (o) => `/v1/data-sources/${o.dataSourceId}`,
    (o) => ({
      name: 'Docs',
      credentialId: o.credentialId,
      connectionId: o.connectionId,
      schedule: { intervalMinutes: 60 },
    }),
    ['name', 'credentialId', 'connectionId', 'schedule', 'schedule.intervalMinutes'],
  ],
  ['POST', (o) => `/v1/data-sources/${o.dataSourceId}/members`, () => ({ userId: 'colleague' }), ['userId']],
  [
    'PUT',
    (o) => `/v1/data-sources/${o.dataSourceId}/selection`,
    () => ({ include: ['f1'], exclude: ['f2'] }),
    ['include', 'include[0]', 'exclude[0]'],
  ],
];
