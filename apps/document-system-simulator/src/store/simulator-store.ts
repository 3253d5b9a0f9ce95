import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { generatedPdf, textStream } from './generated-content';
import { seedProject } from './seed';
import { FileBody, FileNode, FolderNode, NO_FAULTS, Faults, SimNode, SimUser, Workgroup } from './sim-types';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The simulated document system's state, in memory: users, workgroups, the folder tree, file bodies,
 * access tokens, sessions, faults and call statistics. Deterministic from its seed; the state module
 * saves and restores the lasting part.
 */
@Injectable()
export class SimulatorStore {
  users = new Map<string, SimUser>();
  workgroups: Workgroup[] = [];
  nodes = new Map<string, SimNode>();
  children = new Map<string, string[]>();
  accessTokens = new Map<string, { subject: string; expiresAt: number }>();
  sessions = new Map<string, { username: string; expiresAt: number }>();
  faults: Faults = { ...NO_FAULTS };
  pageSize = 50;
  sessionTtlSeconds = 3600;
  stats = { calls: {} as Record<string, number>, bytesServed: 0, faults: { '429': 0, '5xx': 0, dropped: 0 } };
  private counter = 0;
  private clock = Date.parse('2026-01-05T08:00:00Z');

  constructor() {
    this.reset();
  }

  reset(): void {
    this.users.clear();
    this.workgroups = [];
    this.nodes.clear();
    this.children.clear();
    this.accessTokens.clear();
    this.sessions.clear();
    this.faults = { ...NO_FAULTS };
    this.pageSize = 50;
    this.counter = 0;
    this.clock = Date.parse('2026-01-05T08:00:00Z');
    this.resetStats();
    seedProject(this);
  }

  /** Where ids and simulated time stand: with the tree, all a restart needs to go on where it left off. */
  checkpoint(): { counter: number; clock: number } {
    return { counter: this.counter, clock: this.clock };
  }

  resume(checkpoint: { counter: number; clock: number }): void {
    this.counter = checkpoint.counter;
    this.clock = checkpoint.clock;
  }

  resetStats(): void {
    this.stats = { calls: {}, bytesServed: 0, faults: { '429': 0, '5xx': 0, dropped: 0 } };
  }

  nextId(prefix: string): string {
    return `${prefix}-${(++this.counter).toString().padStart(5, '0')}`;
  }

  /** Simulated time moves one minute per change, so modifiedAt values differ and are stable. */
  tick(): string {
    this.clock += 60_000;
    return new Date(this.clock).toISOString();
  }

  addUser(user: SimUser): void {
    this.users.set(user.username, user);
  }

  addWorkgroup(name: string): Workgroup {
    const id = this.nextId('wg');
    const root: FolderNode = { kind: 'folder', id: this.nextId('fld'), name, parentId: null, workgroupId: id };
    this.nodes.set(root.id, root);
    const workgroup = { id, name, rootFolderId: root.id };
    this.workgroups.push(workgroup);
    return workgroup;
  }

  addFolder(parentId: string, name: string): FolderNode {
    const parent = this.folder(parentId);
    const folder: FolderNode = {
      kind: 'folder',
      id: this.nextId('fld'),
      name,
      parentId,
      workgroupId: parent.workgroupId,
    };
    this.link(folder);
    return folder;
  }

  addFile(parentId: string, name: string, mimeType: string, body: FileBody): FileNode {
    const parent = this.folder(parentId);
    const file: FileNode = {
      kind: 'file',
      id: this.nextId('file'),
      name,
      parentId,
      workgroupId: parent.workgroupId,
      mimeType,
      version: 1,
      modifiedAt: this.tick(),
      body,
      size: 0,
    };
    this.setBody(file, body);
    this.link(file);
    return file;
  }

  /** A new version of a file's content. */
  changeFile(id: string, body: FileBody, mimeType?: string): FileNode {
    const file = this.file(id);
    this.setBody(file, body);
    if (mimeType) file.mimeType = mimeType;
    file.version += 1;
    file.modifiedAt = this.tick();
    return file;
  }

  /** Renames and/or moves a node; content and version are unchanged. */
  relocate(id: string, change: { name?: string; parentId?: string }): SimNode {
    const node = this.nodes.get(id);
    if (!node || node.parentId === null) throw new Error(`no movable node ${id}`);
    this.unlink(node);
    if (change.name) node.name = change.name;
    if (change.parentId) {
      const parent = this.folder(change.parentId);
      node.parentId = parent.id;
      node.workgroupId = parent.workgroupId;
    }
    this.link(node);
    return node;
  }

  remove(id: string): void {
    const node = this.nodes.get(id);
    if (!node) return;
    for (const child of [...(this.children.get(id) ?? [])]) this.remove(child);
    this.unlink(node);
    this.nodes.delete(id);
    this.children.delete(id);
  }

  folder(id: string): FolderNode {
    const node = this.nodes.get(id);
    if (!node || node.kind !== 'folder') throw new Error(`no folder ${id}`);
    return node;
  }

  file(id: string): FileNode {
    const node = this.nodes.get(id);
    if (!node || node.kind !== 'file') throw new Error(`no file ${id}`);
    return node;
  }

  childrenPage(folderId: string, cursor: string | undefined): Page<SimNode> {
    const ids = this.children.get(folderId) ?? [];
    const offset = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) || 0 : 0;
    const items = ids.slice(offset, offset + this.pageSize).map((id) => this.nodes.get(id)!);
    const next = offset + this.pageSize;
    return { items, nextCursor: next < ids.length ? Buffer.from(String(next)).toString('base64url') : null };
  }

  /** Every file below a folder, with its path from the workgroup root. */
  filesUnder(folderId: string, path = `/${this.pathOf(folderId)}`): Array<FileNode & { path: string }> {
    return (this.children.get(folderId) ?? []).flatMap((id) => {
      const node = this.nodes.get(id)!;
      return node.kind === 'file'
        ? [{ ...node, path: `${path}/${node.name}` }]
        : this.filesUnder(node.id, `${path}/${node.name}`);
    });
  }

  pathOf(id: string): string {
    const node = this.nodes.get(id)!;
    return node.parentId ? `${this.pathOf(node.parentId)}/${node.name}` : node.name;
  }

  /** Whether the faults' latency and throttle apply to a call on this node (every call when `slowUnder` is empty). */
  isSlow(id: string | undefined): boolean {
    const under = this.faults.slowUnder ?? [];
    if (!under.length) return true;
    for (
      let node = id ? this.nodes.get(id) : undefined;
      node;
      node = node.parentId ? this.nodes.get(node.parentId) : undefined
    )
      if (under.includes(node.id)) return true;
    return false;
  }

  content(file: FileNode): Readable {
    const { body } = file;
    if (body.type === 'bytes') return Readable.from([body.data]);
    if (body.format === 'pdf') return Readable.from([generatedPdf(body.size, body.seed)]);
    return textStream(body.size, body.seed);
  }

  issueAccessToken(subject: string, ttlSeconds: number): string {
    const token = `sim_at_${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(token, { subject, expiresAt: Date.now() + ttlSeconds * 1000 });
    return token;
  }

  validAccessToken(token: string | undefined): string | null {
    const entry = token ? this.accessTokens.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? entry.subject : null;
  }

  openSession(username: string): { sessionToken: string; expiresIn: number } {
    const sessionToken = `sim_st_${randomBytes(18).toString('base64url')}`;
    this.sessions.set(sessionToken, { username, expiresAt: Date.now() + this.sessionTtlSeconds * 1000 });
    return { sessionToken, expiresIn: this.sessionTtlSeconds };
  }

  sessionUser(token: string | undefined): SimUser | null {
    const entry = token ? this.sessions.get(token) : undefined;
    return entry && entry.expiresAt > Date.now() ? (this.users.get(entry.username) ?? null) : null;
  }

  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresAt = 0;
  }

  expireSessions(): void {
    for (const entry of this.sessions.values()) entry.expiresAt = 0;
  }

  private setBody(file: FileNode, body: FileBody): void {
    file.body = body;
    if (body.type === 'bytes') {
      file.size = body.data.length;
      file.sha256 = createHash('sha256').update(body.data).digest('hex');
    } else {
      file.size = body.format === 'pdf' ? generatedPdf(body.size, body.seed).length : body.size;
      file.sha256 = undefined;
    }
  }

  private link(node: SimNode): void {
    this.nodes.set(node.id, node);
    const siblings = this.children.get(node.parentId!) ?? [];
    const key = this.sortKey(node.id);
    let low = 0;
    let high = siblings.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.sortKey(siblings[mid]) < key) low = mid + 1;
      else high = mid;
    }
    siblings.splice(low, 0, node.id);
    this.children.set(node.parentId!, siblings);
  }

  private unlink(node: SimNode): void {
    const siblings = this.children.get(node.parentId!) ?? [];
    this.children.set(
      node.parentId!,
      siblings.filter((id) => id !== node.id),
    );
  }

  private sortKey(id: string): string {
    const node = this.nodes.get(id)!;
    return `${node.kind === 'folder' ? 0 : 1}${node.name.toLowerCase()}`;
  }
}
