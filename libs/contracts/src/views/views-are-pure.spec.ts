import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The console bundles this folder: an import of a package would pull server code into the browser. */
describe('the views folder', () => {
  it('imports nothing but its own files', () => {
    const sources = readdirSync(__dirname).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'));
    const imports = sources.flatMap((name) =>
      [...readFileSync(join(__dirname, name), 'utf8').matchAll(/\bfrom\s+'([^']+)'|\bimport\s+'([^']+)'/g)].map(
        (m) => `${name}: ${m[1] ?? m[2]}`,
      ),
    );
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((line) => !/: \.\/[\w.-]+$/.test(line))).toEqual([]);
  });
});
