import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/agent-platform.json'), 'utf8')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};

/** The metric names the services define: the string constants of their metric files. */
function definedMetricNames(): Set<string> {
  const dirs = [
    join(ROOT, 'libs/metrics/src'),
    join(ROOT, 'apps/approval-service/src/metrics'),
    join(ROOT, 'apps/connector-service/src/metrics'),
  ];
  const sources = dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .map((f) => readFileSync(join(dir, f), 'utf8')),
  );
  return new Set(sources.flatMap((source) => [...source.matchAll(/=\s*'([a-z_]+)'/g)].map((m) => m[1])));
}

describe('deploy/grafana/agent-platform.json', () => {
  it('queries only metrics the services expose (or prom-client defaults)', () => {
    const defined = definedMetricNames();
    const used = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) => [...t.expr.matchAll(/([a-z_]+)\{/g)].map((m) => m[1])),
    );
    expect(used.length).toBeGreaterThan(10);
    const unknown = used
      .map((name) => name.replace(/_(bucket|count|sum)$/, ''))
      .filter((name) => !defined.has(name) && !name.startsWith('process_'));
    expect(unknown).toEqual([]);
  });

  it('has the panels operators asked for', () => {
    const titles = dashboard.panels.map((p) => p.title).join('\n');
    for (const title of [
      'Request rate by route',
      'Request latency p95',
      'Queue depth',
      'Approval delivery attempts',
      'Callback → decision p95',
      'Sync runs by final status',
      'Extraction backlog',
    ])
      expect(titles).toContain(title);
  });
});
