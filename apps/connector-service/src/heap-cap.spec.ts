import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAIN_HEAP_FLAG } from './heap-cap';

const ROOT = resolve(__dirname, '../../..');
const MAIN = 'dist/apps/connector-service/apps/connector-service/src/main.js';
const read = (file: string) => readFileSync(resolve(ROOT, file), 'utf8');

/** Every line of a file that starts the connector's built main. */
function launches(file: string): string[] {
  return read(file)
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
});
