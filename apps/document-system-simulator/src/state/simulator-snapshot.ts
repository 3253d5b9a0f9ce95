import type { OAuthClient, OAuthState, RefreshGrant } from '../oauth/oauth-clients';
import type { SimulatorStore } from '../store/simulator-store';
import type { FileBody, FileNode, FolderNode, SimUser, Workgroup } from '../store/sim-types';

type SavedBody = { type: 'bytes'; base64: string } | Extract<FileBody, { type: 'generated' }>;
type SavedNode = FolderNode | (Omit<FileNode, 'body'> & { body: SavedBody });

/**
 * What the state file holds: the document system's users and tree, its id counter and clock, and the
 * OAuth host's clients and refresh grants (by token hash). Not kept: access tokens, sessions and codes
 * (short-lived; the connector refreshes), faults, settings and statistics. Generated files keep their
 * seed, not their bytes.
 */
export interface SimulatorSnapshot {
  version: 1;
  savedAt: string;
  store: {
    counter: number;
    clock: number;
    users: SimUser[];
    workgroups: Workgroup[];
    nodes: SavedNode[];
    children: Record<string, string[]>;
  };
  oauth: { clients: OAuthClient[]; refreshGrants: Array<[tokenHash: string, grant: RefreshGrant]> };
}

export function takeSnapshot(store: SimulatorStore, oauth: OAuthState): SimulatorSnapshot {
  return {
    version: 1,
    savedAt: new Date().toISOString(),
    store: {
      ...store.checkpoint(),
      users: [...store.users.values()],
      workgroups: store.workgroups,
      nodes: [...store.nodes.values()].map((node) =>
        node.kind === 'folder' ? node : { ...node, body: saveBody(node.body) },
      ),
      children: Object.fromEntries(store.children),
    },
    oauth: { clients: [...oauth.clients.values()], refreshGrants: [...oauth.refreshTokens] },
  };
}

/** Replaces the seeded state with a saved one; throws on a snapshot of another shape or version. */
export function restoreSnapshot(store: SimulatorStore, oauth: OAuthState, saved: unknown): void {
  const snapshot = saved as SimulatorSnapshot;
  if (snapshot?.version !== 1)
    throw new Error(`unknown state version ${JSON.stringify(snapshot?.version)} (this simulator writes version 1)`);
  const { store: tree, oauth: host } = snapshot;
  if (![tree?.users, tree?.workgroups, tree?.nodes, host?.clients, host?.refreshGrants].every(Array.isArray))
    throw new Error('the state is incomplete');
  store.users = new Map(tree.users.map((user) => [user.username, user]));
  store.workgroups = tree.workgroups;
  store.nodes = new Map(
    tree.nodes.map((node) => [node.id, node.kind === 'folder' ? node : { ...node, body: loadBody(node.body) }]),
  );
  store.children = new Map(Object.entries(tree.children ?? {}));
  store.resume({ counter: tree.counter, clock: tree.clock });
  oauth.clients = new Map(host.clients.map((client) => [client.clientId, client]));
  oauth.refreshTokens = new Map(host.refreshGrants);
}

function saveBody(body: FileBody): SavedBody {
  return body.type === 'bytes' ? { type: 'bytes', base64: body.data.toString('base64') } : body;
}

function loadBody(body: SavedBody): FileBody {
  return body.type === 'bytes' ? { type: 'bytes', data: Buffer.from(body.base64, 'base64') } : body;
}
