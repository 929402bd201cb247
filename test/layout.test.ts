// The architecture is visible in the imports: a request goes http → auth → activities
// (and queries) → store, delivery → store; otp/, contracts/, keys/ and policy/ are pure rules that
// import no folder but keys/ (otp/ reads P-256 keys); no folder imports one above it; and only store/
// speaks SQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/processes.ts';

const SRC = path.join(ROOT, 'src');

/** What each folder may import (besides the shared errors.ts and config.ts at the root). */
const MAY_IMPORT: Record<string, string[]> = {
  // The command line sits at the top: it may import anything below it (and server.ts at the root).
  cli: ['http', 'auth', 'activities', 'queries', 'admin', 'delivery', 'store', 'otp', 'contracts', 'keys'],
  http: ['auth', 'activities', 'queries', 'admin', 'delivery', 'store', 'otp', 'contracts', 'keys'],
  auth: ['activities', 'store', 'otp', 'keys'],
  queries: ['activities', 'store'],
  activities: ['store', 'otp', 'contracts', 'keys', 'policy'],
  admin: ['store', 'otp', 'keys'],
  delivery: ['store', 'otp'],
  store: ['otp'],
  otp: ['keys'],
  contracts: [],
  keys: [],
  policy: [],
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('no folder imports a folder it may not (none imports one above it)', () => {
  const wrong: string[] = [];
  for (const file of sources(SRC)) {
    const folder = path.relative(SRC, file).split(path.sep)[0]!;
    const allowed = MAY_IMPORT[folder];
    if (!allowed) continue; // the composition at the root (cli.ts, server.ts) and the shared config.ts, errors.ts
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), specifier!)).split(path.sep);
      const targetFolder = target.length > 1 ? target[0]! : undefined;
      if (targetFolder === undefined) {
        if (folder !== 'otp' && folder !== 'contracts' && folder !== 'keys' && folder !== 'policy') continue;
        if (target[0] === 'errors.ts') continue;
      } else if (targetFolder === folder || allowed.includes(targetFolder)) {
        continue;
      }
      wrong.push(`${path.relative(ROOT, file)} imports ${specifier}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('only src/store speaks SQL', () => {
  const statement = /\b(SELECT\s+[\s\S]{0,200}?\bFROM|INSERT\s+INTO|UPDATE\s+[a-z_]+\s+SET|DELETE\s+FROM)\b/;
  const outside = sources(SRC)
    .filter((file) => !path.relative(SRC, file).startsWith(`store${path.sep}`))
    .filter((file) => statement.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(ROOT, file));
  assert.deepEqual(outside, []);
});
