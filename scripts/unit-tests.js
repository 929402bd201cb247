// The unit tests, which `npm run test:unit` runs (docs/development.md, "Tests"): the test files that
// start nothing, no store, no server, no child process, no browser. A rule says which they are, not a
// list: a test file is a unit test when neither it nor a test helper it imports (test/support/,
// through any chain of imports) imports one of STARTS. Each of their processes loads
// scripts/unit-guard.js, which makes starting a child process or listening on a socket throw, so a
// test this rule takes in by mistake fails and says why; test/unitTests.test.ts checks both.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What starts something: a module, or a file of the repository (from its root). */
export const STARTS = [
  // a child process
  'node:child_process',
  // a server, or a connection to one
  'node:http',
  'node:https',
  'node:http2',
  'node:net',
  'node:dgram',
  'smtp-server',
  // a browser
  'playwright-core',
  // a store: PGlite, PostgreSQL, Signet's own (src/store/db.ts opens it), Signet itself
  '@electric-sql/pglite',
  'pg',
  'src/store/db.ts',
  'src/server.ts',
];

/** An import or export statement at the start of a line, or a dynamic import(). */
const IMPORT = /^(?:import|export)\b[^']*?'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;
/** The modules of STARTS also imported without their node: prefix. */
const BUILTINS = new Set(STARTS.filter((what) => what.startsWith('node:')).map((what) => what.slice('node:'.length)));

/** What a test file imports, directly or through the test helpers it imports. */
function importsOf(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const found = [];
  for (const [, statement, dynamic] of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const specifier = statement ?? dynamic;
    if (!specifier.startsWith('.')) {
      found.push(BUILTINS.has(specifier) ? `node:${specifier}` : specifier);
      continue;
    }
    const target = path.resolve(path.dirname(file), specifier);
    found.push(path.relative(ROOT, target).split(path.sep).join('/'));
    if (path.relative(path.join(ROOT, 'test'), target).startsWith('..') || !/\.ts$/.test(target) || !fs.existsSync(target)) continue;
    found.push(...importsOf(target, seen));
  }
  return found;
}

/** Every test file, each with what it imports that starts something (nothing: a unit test). */
export function testFiles() {
  const dir = path.join(ROOT, 'test');
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => ({ name, starts: [...new Set(importsOf(path.join(dir, name)).filter((what) => STARTS.includes(what)))] }));
}

/** The unit tests: the names of the test files that start nothing. */
export const unitTests = () =>
  testFiles()
    .filter((file) => file.starts.length === 0)
    .map((file) => file.name);
