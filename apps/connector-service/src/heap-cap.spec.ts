import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAIN_HEAP_FLAG, WORKER_GC_FLAG } from './heap-cap';

const ROOT = resolve(__dirname, '../../..');
const MAIN = 'dist/apps/connector-service/apps/connector-service/src/main.js';
const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

/** Every line of a file that starts the connector's built main (a bracketed list spread over lines counts as one). */
function launches(file: string): string[] {
  return read(file)
    .replace(/\[[^\]]*\]/g, (list) => list.replace(/\s*\n\s*/g, ' '))
    .split('\n')
    .filter((line) => line.includes(MAIN));
}

describe('the connector main thread heap cap', () => {
  it.each([
    ['Dockerfile', 1],
    ['docker-compose.yml', 1],
    ['deploy/kubernetes/connector-service.yaml', 2],
    ['package.json', 1],
  ])('is passed by every launch in %s', (file, count) => {
    const lines = launches(file);
    expect(lines).toHaveLength(count);
    for (const line of lines) expect(line).toMatch(new RegExp(`${MAIN_HEAP_FLAG}['",\\s]+${MAIN}`));
  });

  it('is passed by npm start and by the ingest bench', () => {
    expect(read('scripts/start.js')).toContain(
      `name: 'connector-service', port: 3001, nodeArgs: ['${MAIN_HEAP_FLAG}']`,
    );
    expect(read('bench/ingest.ts')).toMatch(/spawn\(process\.execPath, \[[^\]]*MAIN_HEAP_FLAG/);
  });

  it("is joined by single-threaded garbage collection where only a worker runs: Kubernetes' worker and the ingest bench", () => {
    const [api, worker] = launches('deploy/kubernetes/connector-service.yaml');
    expect(worker).toContain(`'${WORKER_GC_FLAG}'`);
    expect(api).not.toContain(WORKER_GC_FLAG);
    expect(read('bench/ingest.ts')).toMatch(/BENCH_WORKER_NODE_FLAGS \?\? WORKER_GC_FLAG/);
  });
});
