import type { HttpClient } from './http-client';
import type {
  AuthorizationStart,
  CredentialValidation,
  Connection,
  Credential,
  CredentialInput,
  DataSource,
  DataSourceDetail,
  DocumentText,
  Member,
  PassagePage,
  PickerPage,
  Provider,
  ProviderInput,
  SearchPage,
  Selection,
  SyncRun,
  SyncRunFilesPage,
  SyncStart,
  TreePage,
} from './types';

export interface NewDataSource {
  name: string;
  connectionId: string;
  credentialId?: string;
  credential?: CredentialInput;
}

export interface DataSourceChanges {
  name?: string;
  credentialId?: string;
  connectionId?: string;
}

const id = encodeURIComponent;

/** The connector-service's public API, one function per endpoint the console uses. */
export function connectorApi(http: HttpClient) {
  return {
    providers: {
      list: () => http.get<Provider[]>('/v2/OAuth/providers'),
      create: (input: ProviderInput) => http.post<Provider>('/v2/OAuth/providers', input),
      update: (providerId: string, input: ProviderInput) =>
        http.put<Provider>(`/v2/OAuth/providers/${id(providerId)}`, input),
      remove: (providerId: string) => http.delete(`/v2/OAuth/providers/${id(providerId)}`),
    },
    connections: {
      authorize: (providerId: string) => http.post<AuthorizationStart>('/v2/OAuth/authorize', { providerId }),
      list: () => http.get<Connection[]>('/v2/OAuth/connections'),
    },
    credentials: {
      list: () => http.get<Credential[]>('/v1/credentials'),
      create: (input: CredentialInput) => http.post<Credential>('/v1/credentials', input),
      update: (credentialId: string, input: CredentialInput) =>
        http.put<Credential>(`/v1/credentials/${id(credentialId)}`, input),
      remove: (credentialId: string) => http.delete(`/v1/credentials/${id(credentialId)}`),
      validate: (credentialId: string, connectionId: string) =>
        http.post<CredentialValidation>(`/v1/credentials/${id(credentialId)}/validate`, { connectionId }),
    },
    dataSources: {
      list: (projectId: string) => http.get<DataSource[]>(`/v1/projects/${id(projectId)}/data-sources`),
      get: (dataSourceId: string) => http.get<DataSourceDetail>(`/v1/data-sources/${id(dataSourceId)}`),
      create: (projectId: string, input: NewDataSource) =>
        http.post<DataSource>(`/v1/projects/${id(projectId)}/data-sources`, input),
      update: (dataSourceId: string, changes: DataSourceChanges) =>
        http.patch<DataSource>(`/v1/data-sources/${id(dataSourceId)}`, changes),
      remove: (dataSourceId: string) => http.delete(`/v1/data-sources/${id(dataSourceId)}`),
      folders: (dataSourceId: string, parentId?: string, cursor?: string | null) =>
        http.get<PickerPage>(`/v1/data-sources/${id(dataSourceId)}/folders`, { parentId, cursor }),
      select: (dataSourceId: string, selection: Selection) =>
        http.put<DataSource>(`/v1/data-sources/${id(dataSourceId)}/selection`, selection),
      tree: (dataSourceId: string, folderId?: string) =>
        http.get<TreePage>(`/v1/data-sources/${id(dataSourceId)}/tree`, { folderId }),
      members: (dataSourceId: string) => http.get<Member[]>(`/v1/data-sources/${id(dataSourceId)}/members`),
      addMember: (dataSourceId: string, userId: string) =>
        http.post<Member>(`/v1/data-sources/${id(dataSourceId)}/members`, { userId }),
      removeMember: (dataSourceId: string, userId: string) =>
        http.delete(`/v1/data-sources/${id(dataSourceId)}/members/${id(userId)}`),
    },
    sync: {
      start: (dataSourceId: string) => http.post<SyncStart>(`/v1/data-sources/${id(dataSourceId)}/sync`),
      runs: (dataSourceId: string) => http.get<SyncRun[]>(`/v1/data-sources/${id(dataSourceId)}/sync-runs`),
      run: (syncRunId: string) => http.get<SyncRun>(`/v1/sync-runs/${id(syncRunId)}`),
      cancel: (syncRunId: string) => http.post<SyncRun>(`/v1/sync-runs/${id(syncRunId)}/cancel`),
      events: (syncRunId: string, onEvent: (name: string, data: string) => void, signal: AbortSignal) =>
        http.events(`/v1/sync-runs/${id(syncRunId)}/events`, onEvent, signal),
      confirmDeletions: (syncRunId: string) =>
        http.post<{ deleted: number }>(`/v1/sync-runs/${id(syncRunId)}/confirm-deletions`),
      files: (syncRunId: string, query: { outcome?: string; cursor?: string | null; limit?: number }) =>
        http.get<SyncRunFilesPage>(`/v1/sync-runs/${id(syncRunId)}/files`, query),
    },
    documents: {
      text: (documentId: string) => http.get<DocumentText>(`/v1/documents/${id(documentId)}/text`),
      content: (documentId: string) => http.blob(`/v1/documents/${id(documentId)}/content`),
    },
    search: (projectId: string, q: string, cursor?: string | null, dataSourceId?: string) =>
      http.get<SearchPage>(`/v1/projects/${id(projectId)}/search`, { q, cursor, dataSourceId }),
    passages: (projectId: string, q: string, dataSourceId?: string) =>
      http.get<PassagePage>(`/v1/projects/${id(projectId)}/passages`, { q, dataSourceId }),
  };
}

export type ConnectorApi = ReturnType<typeof connectorApi>;
