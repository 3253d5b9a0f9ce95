import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** The decorators stacked on one property: the lines from the last blank, `;` or `{` line down to the property. */
function decoratorsAbove(lines: string[], index: number): string {
  let start = index;
  while (start > 0 && !/^\s*$|[;{}]\s*$/.test(lines[start - 1])) start--;
  return lines.slice(start, index + 1).join('\n');
}

/**
 * class-validator's `@ValidateNested()` checks each element of an array and finds none in `[]`: on a property
 * that wants one object, `[]` passed validation and broke what followed (a 500 on a data source's `schedule`, no
 * InvalidRequest for an approval's `webhook.authentication`). Every such property says what it takes.
 */
describe('@ValidateNested() properties', () => {
  const files = execFileSync('git', ['ls-files', 'apps/*/src/**.ts', 'libs/*/src/**.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));

  it('are each declared an object (@IsObject) or an array (@IsArray with { each: true })', () => {
    const loose: string[] = [];
    for (const file of files) {
      const lines = readFileSync(resolve(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (!line.includes('@ValidateNested(')) return;
        const stack = decoratorsAbove(lines, index) + '\n' + lines.slice(index + 1, index + 4).join('\n');
        if (!/@IsObject\(|@IsArray\(/.test(stack)) loose.push(`${file}:${index + 1}`);
      });
    }
    expect(files.length).toBeGreaterThan(100);
    expect(loose).toEqual([]);
  });
});
