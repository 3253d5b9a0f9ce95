import { Client } from 'pg';
const mod = require((process.argv[2] ?? '/work/main') + '/apps/connector-service/src/search/search.repository');
(async () => {
  const c = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/bench_search_100000' });
  await c.connect();
  await c.query('SET plan_cache_mode = force_generic_plan');
  const ids = (await c.query(`SELECT DISTINCT "dataSourceId" AS id FROM connector.documents`)).rows.map((r: any) => r.id);
  const out: string[] = [];
  for (const p of ['/Structural/', '/Structural/Submittals/Level 5/', '/Quality/Submittals/Level 3/Q-403', '/Structural/Sub-0/', '/'])
    for (const w of ['footing', 'lokadanpel', 'miganrosloter']) {
      let captured: any;
      const repo = new mod.SearchRepository({ query: async (q: any) => { captured = q; return []; } });
      await repo.search({ dataSourceIds: ids, q: w, pathPrefix: p, offset: 0, limit: 21, candidates: 301, mostOfProject: true });
      const rows = (await c.query(captured)).rows;
      const t = process.hrtime.bigint();
      for (let i = 0; i < 5; i++) await c.query(captured);
      out.push(`${p} ${w}: ${rows.length} rows ${(Number(process.hrtime.bigint() - t) / 5e6).toFixed(1)} ms ${rows.map((r: any) => r.documentId.slice(0, 4)).join('').slice(0, 24)}`);
    }
  console.log(out.join('\n'));
  await c.end();
})();
