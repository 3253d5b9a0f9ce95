import { docxDocument, pdfDocument } from './file-formats';
import type { FileBody, FileNode, FolderNode, SimUser, Workgroup } from './sim-types';

/** Phrases tests and demos search for; each appears in exactly one seeded file. */
export const SEED_PHRASES = {
  pdf: 'fire-rated gypsum assembly UL U419',
  docx: 'seismic bracing detail SB-7',
  markdown: 'door swing conflicts with the corridor',
} as const;

export const SEED_USERS = {
  /** Sees every workgroup but Owner Confidential. */
  alice: { username: 'alice', password: 'alice-password' },
  /** Sees Architecture only. */
  bob: { username: 'bob', password: 'bob-password' },
  /** A valid account without any workgroup access. */
  nobody: { username: 'nobody', password: 'nobody-password' },
} as const;

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const bytes = (data: Buffer | string) => ({
  type: 'bytes' as const,
  data: Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'),
});

/** What seeding needs of the simulator's store. */
export interface ProjectBuilder {
  addWorkgroup(name: string): Workgroup;
  addUser(user: SimUser): void;
  addFolder(parentId: string, name: string): FolderNode;
  addFile(parentId: string, name: string, mimeType: string, body: FileBody): FileNode;
}

/** A deterministic construction project: three workgroups, drawings by level, specs, RFIs, submittals. */
export function seedProject(store: ProjectBuilder): void {
  const arch = store.addWorkgroup('Architecture');
  const struct = store.addWorkgroup('Structural');
  const mep = store.addWorkgroup('MEP');
  const owner = store.addWorkgroup('Owner Confidential');

  store.addUser({ ...SEED_USERS.alice, workgroupIds: [arch.id, struct.id, mep.id] });
  store.addUser({ ...SEED_USERS.bob, workgroupIds: [arch.id] });
  store.addUser({ ...SEED_USERS.nobody, workgroupIds: [] });
  store.addUser({ username: 'owner', password: 'owner-password', workgroupIds: [owner.id] });

  // Architecture
  const drawings = store.addFolder(arch.rootFolderId, 'Drawings');
  const level1 = store.addFolder(drawings.id, 'Level 1');
  store.addFile(
    level1.id,
    'A-101 Floor Plan.pdf',
    PDF,
    bytes(pdfDocument([['A-101 Floor Plan - Level 1', 'Grid lines A to H, 1 to 9', 'Lobby, retail units 101-104']])),
  );
  store.addFile(
    level1.id,
    'A-102 Reflected Ceiling Plan.pdf',
    PDF,
    bytes(pdfDocument([['A-102 Reflected Ceiling Plan', 'Ceiling height 3.2 m in the lobby']])),
  );
  const level2 = store.addFolder(drawings.id, 'Level 2');
  store.addFile(
    level2.id,
    'A-201 Floor Plan.pdf',
    PDF,
    bytes(pdfDocument([['A-201 Floor Plan - Level 2', 'Offices 201-230, two egress stairs']])),
  );
  const sections = store.addFolder(drawings.id, 'Sections');
  store.addFile(
    sections.id,
    'A-501 Wall Sections.pdf',
    PDF,
    bytes(
      pdfDocument([
        ['A-501 Wall Sections', `Wall type W3: ${SEED_PHRASES.pdf}`, 'Two layers 5/8 in. type X each side'],
        ['Parapet detail P2'],
      ]),
    ),
  );
  const details = store.addFolder(drawings.id, 'Details');
  const facade = store.addFolder(details.id, 'Détails – Façade');
  const panels = store.addFolder(facade.id, 'Panels');
  const typeA = store.addFolder(panels.id, 'Type A');
  const anchors = store.addFolder(typeA.id, 'Anchors');
  store.addFile(
    anchors.id,
    'anchor-notes.txt',
    'text/plain',
    bytes('Façade panel type A anchors: stainless steel, 4 per panel, embedment 110 mm.\n'),
  );
  store.addFile(
    facade.id,
    'Façade elevations.md',
    'text/markdown',
    bytes('# Façade elevations\n\nNorth and south elevations, curtain wall modules of 1.5 m.\n'),
  );
  const specs = store.addFolder(arch.rootFolderId, 'Specifications');
  store.addFile(
    specs.id,
    '09 21 16 Gypsum Board Assemblies.docx',
    DOCX,
    bytes(docxDocument(['Section 09 21 16', 'Gypsum board assemblies, fire-rated where shown.'])),
  );
  const rfis = store.addFolder(arch.rootFolderId, 'RFIs');
  for (let i = 1; i <= 60; i++) {
    const number = String(i).padStart(3, '0');
    const text =
      i === 7
        ? `# RFI-${number}\n\nThe ${SEED_PHRASES.markdown} at grid C4. Please confirm the hardware set.\n`
        : `# RFI-${number}\n\nQuestion ${i} about coordination at level ${1 + (i % 3)}.\n`;
    store.addFile(rfis.id, `RFI-${number}.md`, 'text/markdown', bytes(text));
  }
  store.addFolder(arch.rootFolderId, 'Submittals');

  // Structural
  const sDrawings = store.addFolder(struct.rootFolderId, 'Drawings');
  store.addFile(
    sDrawings.id,
    'S-101 Foundation Plan.pdf',
    PDF,
    bytes(pdfDocument([['S-101 Foundation Plan', 'Pad footings F1-F4, 300 mm slab on grade']])),
  );
  const calcs = store.addFolder(struct.rootFolderId, 'Calculations');
  store.addFile(
    calcs.id,
    'beam-schedule.csv',
    'text/csv',
    bytes('mark,size,length_m\nB1,W310x39,7.2\nB2,W410x54,9.0\n'),
  );
  const sSpecs = store.addFolder(struct.rootFolderId, 'Specifications');
  store.addFile(
    sSpecs.id,
    'Seismic Bracing.docx',
    DOCX,
    bytes(
      docxDocument([
        'Seismic restraint of nonstructural components',
        `Use the ${SEED_PHRASES.docx} for ducts over 0.6 m.`,
      ]),
    ),
  );

  // MEP
  const piping = store.addFolder(mep.rootFolderId, '配管図');
  store.addFile(
    piping.id,
    'P-101 配管図.txt',
    'text/plain',
    bytes('配管図 P-101: 給水管と排水管のルート。Water supply and drainage routing.\n'),
  );
  const mech = store.addFolder(mep.rootFolderId, 'Mechanical');
  store.addFile(
    mech.id,
    'M-101 HVAC Plan.pdf',
    PDF,
    bytes(pdfDocument([['M-101 HVAC Plan', 'AHU-1 on the roof, VAV boxes per zone']])),
  );
  store.addFile(
    mech.id,
    'equipment-list.csv',
    'text/csv',
    bytes('tag,description\nAHU-1,Air handling unit\nEF-2,Exhaust fan\n'),
  );
  const elec = store.addFolder(mep.rootFolderId, 'Electrical');
  store.addFile(
    elec.id,
    'panel-schedule.json',
    'application/json',
    bytes(
      JSON.stringify({
        panel: 'LP-1',
        circuits: [
          { n: 1, load: 'Lighting lobby' },
          { n: 2, load: 'Receptacles 101' },
        ],
      }),
    ),
  );
  store.addFile(
    elec.id,
    'notes.html',
    'text/html',
    bytes('<html><body><h1>Electrical notes</h1><p>All conduit EMT &amp; fittings compression type.</p></body></html>'),
  );
  store.addFile(
    elec.id,
    'site-photo.jpg',
    'image/jpeg',
    bytes(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0xff, 0xd9])),
  );

  // Owner Confidential (no seeded user but "owner" sees it)
  store.addFile(owner.rootFolderId, 'budget.txt', 'text/plain', bytes('Owner budget: confidential.\n'));
}
