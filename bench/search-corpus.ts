/**
 * The search bench's corpus, seeded through SQL into the connector's own tables (the migrations' columns,
 * generated search vectors and indexes): `docs` documents in 50 data sources of one project, each of 1–20
 * chunks (10.5 on average) of about 1,200 characters of construction text: words drawn from a Zipf-like
 * vocabulary (stop words and construction terms at the head, invented words in the tail), with a few
 * construction phrases sprinkled in, behind a title line. Paragraphs are drawn from a pool, as a project's
 * documents repeat each other's boilerplate. Each paragraph is a chunk, placed where it lies in its document's
 * text (as extraction lays a text out for passages); a PDF has a page every two paragraphs.
 */
import { Client } from 'pg';

export const BENCH_TENANT = 'bench-tenant';
export const BENCH_PROJECT = '5e1ec7ed-0000-4000-8000-000000000001';
export const BENCH_ADMIN = 'bench-admin';
export const BENCH_MEMBER = 'bench-member';
export const DATA_SOURCES = 50;
const SOURCE_PREFIX = '5e1ec7ed-0000-4000-8000-';
/** Data source `s` (0–49); the bench's member may read source 7 only. */
export const sourceId = (s: number) => `${SOURCE_PREFIX}${String(s).padStart(12, '0')}`;

const STOP_WORDS =
  'the of and to in a is for shall be with on as by at or are this that from all each an not per where which it'.split(
    ' ',
  );
const TERMS = (
  'concrete steel beam column slab wall floor roof door window footing foundation rebar reinforcement formwork pour ' +
  'anchor bolt plate weld connection girder joist truss deck membrane insulation vapor barrier flashing parapet ' +
  'curtainwall glazing mullion sealant caulk gypsum board stud track partition ceiling tile grid sprinkler valve pipe ' +
  'duct damper diffuser grille chiller boiler pump fan coil conduit cable tray panel breaker transformer switchgear ' +
  'lighting fixture receptacle grounding drainage sewer manhole catch basin asphalt paving curb gutter grading ' +
  'excavation backfill compaction geotextile retaining shoring underpinning pile cap grade elevator stair railing ' +
  'guardrail handrail masonry mortar grout lintel brick block veneer tie cladding louver hatch skylight canopy ' +
  'waterproofing warranty submittal specification drawing schedule detail section elevation plan revision addendum ' +
  'inspection testing commissioning punchlist closeout contractor subcontractor architect engineer owner consultant ' +
  'tolerance deflection load bearing shear moment stress strain camber cover spacing lap splice stirrup hook dowel ' +
  'epoxy coating primer paint finish sealer hardener curing admixture aggregate cement slump cylinder strength ' +
  'firestop rated assembly smoke detector alarm egress occupancy accessibility ramp threshold hardware closer hinge'
).split(' ');
const PHRASES = [
  'fire rated gypsum board assembly',
  'cast in place concrete',
  'structural steel erection',
  'vapor retarder under slab',
  'expansion joint cover',
  'shop drawings for review',
  'request for information',
  'temporary shoring removal',
  'liquidated damages per day',
  'substantial completion date',
  'curtain wall mockup test',
  'anchor rod embedment depth',
  'moisture vapor emission rate',
  'slip critical bolted connection',
  'chilled water supply temperature',
  'roof drain overflow scupper',
  'seismic bracing of ductwork',
  'spray applied fireproofing thickness',
  'precast hollow core plank',
  'post tensioned slab stressing',
];
const DISCIPLINES = [
  'Architecture',
  'Structural',
  'MEP',
  'Civil',
  'Landscape',
  'Fire Protection',
  'Contracts',
  'Quality',
];
const FOLDERS = ['Drawings', 'Specifications', 'RFIs', 'Submittals', 'Reports', 'Meeting Minutes'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ter', 'vus', 'dan', 'pel', 'ros', 'ith', 'gan'];
export const VOCABULARY = 30_000;
const PARAGRAPHS = 40_000;

const arr = (values: string[]) => `(ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}])`;

/** Head of the vocabulary: stop words and terms alternate, then the remaining terms, then invented words. */
export function vocabulary(): string[] {
  const head: string[] = [];
  for (let i = 0; i < TERMS.length; i++) {
    if (i < STOP_WORDS.length) head.push(STOP_WORDS[i]);
    head.push(TERMS[i]);
  }
  const tail = Array.from({ length: VOCABULARY - head.length }, (_, i) =>
    [...String(i + 1000)].map((d) => SYLLABLES[Number(d)]).join(''),
  );
  return [...head, ...tail];
}

export const PHRASE_CANDIDATES = PHRASES;
export const PATH_PREFIX = '/Structural/';

/** Seeds the corpus; returns the seconds each step took. */
export async function seedCorpus(db: Client, docs: number): Promise<Record<string, number>> {
  const times: Record<string, number> = {};
  const step = async (name: string, sql: string) => {
    const started = performance.now();
    await db.query(sql);
    times[name] = (performance.now() - started) / 1000;
  };
  const perSource = Math.ceil(docs / DATA_SOURCES);
  const words = vocabulary();
  await db.query(
    `CREATE UNLOGGED TABLE public.bench_vocabulary AS SELECT rank::int, word FROM unnest($1::text[]) WITH ORDINALITY AS v(word, rank)`,
    [words],
  );
  await db.query(
    `CREATE FUNCTION pg_temp."sourceId"(s int) RETURNS uuid IMMUTABLE LANGUAGE sql AS $$ SELECT ('${SOURCE_PREFIX}' || lpad(s::text, 12, '0'))::uuid $$`,
  );
  await db.query(`SET session_replication_role = replica`); // no per-row foreign-key triggers while seeding
  await step(
    'paragraphs',
    `
    CREATE UNLOGGED TABLE public.bench_paragraphs AS
    SELECT t.p AS id, string_agg(v.word, ' ' ORDER BY t.i)
      || CASE WHEN min(t.phrase) < 0.056 THEN ' ' || (${arr(PHRASES)})[1 + floor(min(t.phrase) / 0.056 * ${PHRASES.length})::int] || '.' ELSE '.' END AS text
    FROM (
      SELECT p, i, floor(power(${words.length}, random()))::int AS rank, CASE WHEN i = 1 THEN random() END AS phrase
      FROM generate_series(0, ${PARAGRAPHS - 1}) p, generate_series(1, 180) i
    ) t JOIN public.bench_vocabulary v ON v.rank = t.rank
    GROUP BY t.p`,
  );
  await db.query(`ALTER TABLE public.bench_paragraphs ADD PRIMARY KEY (id)`);
  await db.query(`ANALYZE public.bench_paragraphs`);
  await db.query(`
    INSERT INTO connector.credentials (id, "tenantId", name, type, "instanceUrl", username, "passwordEncrypted", scope, "createdBy")
    VALUES ('5e1ec7ed-0000-4000-8000-0000000000c0', '${BENCH_TENANT}', 'Bench', 'DocumentSystem', 'http://127.0.0.1:1', 'bench', 'not-a-secret', 'Tenant', '${BENCH_ADMIN}')`);
  await db.query(`
    INSERT INTO connector.data_sources (id, "tenantId", "projectId", name, "credentialId", "connectionId", "ingestionStatus", "createdBy", "instanceOrigin")
    SELECT pg_temp."sourceId"(s), '${BENCH_TENANT}', '${BENCH_PROJECT}', 'Bench ' || s, '5e1ec7ed-0000-4000-8000-0000000000c0', gen_random_uuid(), 'Synced', '${BENCH_ADMIN}', 'http://127.0.0.1:1'
    FROM generate_series(0, ${DATA_SOURCES - 1}) s`);
  await db.query(
    `INSERT INTO connector.data_source_members ("dataSourceId", "userId", "addedBy") VALUES (pg_temp."sourceId"(7), '${BENCH_MEMBER}', '${BENCH_ADMIN}')`,
  );
  const indexes = await dropIndexes(db);

  await step(
    'documents',
    `
    INSERT INTO connector.documents (id, "tenantId", "dataSourceId", "externalId", "folderId", name, path, "mimeType", size, "contentSha256", "extractionStatus", text, "lastSeenRunId", "openingChunks", "pageStarts", "pageEnds")
    SELECT md5('bench' || n)::uuid, '${BENCH_TENANT}', pg_temp."sourceId"(n / ${perSource}), 'f' || n, folder, name, '/' || folder || '/' || name,
      CASE right(name, 3) WHEN 'pdf' THEN 'application/pdf' WHEN 'ocx' THEN 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' ELSE 'text/markdown' END,
      length(body), md5(body), 'Succeeded', body, '5e1ec7ed-0000-4000-8000-0000000000f0',
      opening, CASE right(name, 3) WHEN 'pdf' THEN page_starts END, CASE right(name, 3) WHEN 'pdf' THEN page_ends END
    FROM generate_series(0, ${docs - 1}) n
    CROSS JOIN LATERAL (SELECT (${arr(DISCIPLINES)})[1 + n % ${DISCIPLINES.length}] || '/' || (${arr(FOLDERS)})[1 + (n / 7) % ${FOLDERS.length}] || '/Level ' || (n % 12) AS folder) f
    CROSS JOIN LATERAL (
      SELECT upper(left((${arr(DISCIPLINES)})[1 + n % ${DISCIPLINES.length}], 1)) || '-' || (100 + n % 900) || ' ' || initcap(${arr(TERMS)}[1 + abs(hashint4(n)) % ${TERMS.length}])
        || ' ' || initcap(${arr(TERMS)}[1 + abs(hashint4(n + 1)) % ${TERMS.length}]) || ' ' || (n / 900) || (ARRAY['.pdf', '.docx', '.md'])[1 + n % 3] AS name
    ) m
    CROSS JOIN LATERAL (
      -- Each paragraph is a chunk: where it lies in the body, the first eight's ranges, and a page every two paragraphs.
      SELECT string_agg(part, E'\\n' ORDER BY i) AS body,
        array_agg(ARRAY[start, start + length(part), byte_start, byte_start + octet_length(part)] ORDER BY i) FILTER (WHERE i < 8) AS opening,
        array_agg(start ORDER BY i) FILTER (WHERE i % 2 = 0) AS page_starts,
        array_agg(start + length(part) ORDER BY i) FILTER (WHERE i % 2 = 1 OR i = last) AS page_ends
      FROM (
        SELECT i, part, max(i) OVER () AS last,
          coalesce(sum(length(part) + 1) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int AS start,
          coalesce(sum(octet_length(part) + 1) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int AS byte_start
        FROM (
          SELECT i, CASE WHEN i = 0 THEN 'Harbor Tower document ' || n || E'\\n' ELSE '' END || p.text AS part
          FROM generate_series(0, abs(hashint4(n * 31)) % 20) i JOIN public.bench_paragraphs p ON p.id = abs(hashint8(n * 100 + i)) % ${PARAGRAPHS}
        ) parts
      ) placed
    ) b`,
  );
  await step(
    'chunks',
    `
    INSERT INTO connector.document_chunks ("documentId", "dataSourceId", index, text, start, "end")
    SELECT id, source, i, part, start, start + length(part) FROM (
      SELECT md5('bench' || n)::uuid AS id, pg_temp."sourceId"(n / ${perSource}) AS source, i, part,
        coalesce(sum(length(part) + 1) OVER (PARTITION BY n ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::int AS start
      FROM (
        SELECT n, i, CASE WHEN i = 0 THEN 'Harbor Tower document ' || n || E'\\n' ELSE '' END || p.text AS part
        FROM generate_series(0, ${docs - 1}) n CROSS JOIN LATERAL generate_series(0, abs(hashint4(n * 31)) % 20) i JOIN public.bench_paragraphs p ON p.id = abs(hashint8(n * 100 + i)) % ${PARAGRAPHS}
      ) parts
    ) placed`,
  );
  await db.query(`RESET session_replication_role`);
  const started = performance.now();
  await db.query(`SET maintenance_work_mem = '512MB'`);
  for (const index of indexes) await db.query(index);
  times.indexes = (performance.now() - started) / 1000;
  await step('vacuum analyze', `VACUUM ANALYZE connector.documents, connector.document_chunks`);
  await db.query(`DROP TABLE public.bench_paragraphs, public.bench_vocabulary`);
  return times;
}

/** The tables' secondary indexes, dropped while seeding and built again after (their definitions, with options, as the migrations left them). */
async function dropIndexes(db: Client): Promise<string[]> {
  const { rows } = await db.query(`
    SELECT i.indexname, i.indexdef FROM pg_indexes i
    WHERE i.schemaname = 'connector' AND i.tablename IN ('documents', 'document_chunks')
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`);
  for (const row of rows) await db.query(`DROP INDEX connector."${row.indexname}"`);
  return rows.map((r) => r.indexdef as string);
}
