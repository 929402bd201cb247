// The repository is self-contained: no test, script or source reads a path outside it, so `npm test`
// passes in a fresh clone in any folder (not only beside the workplace's shared folder).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/root.ts';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'vectors' ? [] : files(full);
    return /\.(ts|js|mjs|cjs|json|sh)$/.test(entry.name) ? [full] : [];
  });
}

test('no relative path in the sources, tests, scripts or CI leads outside the repository', () => {
  const roots = ['src', 'test', 'bench', 'examples', 'bin', 'scripts', '.ci'].map((d) => path.join(ROOT, d)).filter((d) => fs.existsSync(d));
  const escapes: string[] = [];
  for (const file of [...roots.flatMap(files), path.join(ROOT, 'package.json')]) {
    const source = fs.readFileSync(file, 'utf8');
    // Every quoted relative path used as one — an import, a URL or path built from it, a file read —
    // resolved from the file's folder. (A path-like string that is only data, such as a fuzzer's
    // payload, is not followed.)
    const use = /\bfrom\b|import\(|require\(|URL\(|join\(|resolve\(|readFileSync\(|readdirSync\(|existsSync\(|\bcd\b/;
    for (const match of source.matchAll(/['"`]((?:\.\.?\/)+[^'"`\s$]*)['"`]/g)) {
      const line = source.slice(source.lastIndexOf('\n', match.index) + 1, match.index);
      if (!use.test(line)) continue;
      const target = path.resolve(path.dirname(file), match[1]!);
      if (path.relative(ROOT, target).startsWith('..')) escapes.push(`${path.relative(ROOT, file)}: ${match[1]}`);
    }
  }
  assert.deepEqual(escapes, []);
});
