// The architecture is visible in the imports: a request goes http → auth → activities
// (and queries) → store, delivery → store; otp/, contracts/, keys/ and policy/ are pure rules that
// import no folder but keys/ (otp/ reads P-256 keys) and wire/, the leaf every layer shares (the JSON
// document's checks, field violations); store/ imports only wire/ (it knows tables, not the domain);
// no folder imports one above it; no file imports, through a chain of imports, one that imports it;
// and only store/ speaks SQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/processes.ts';

const SRC = path.join(ROOT, 'src');

/** What each folder may import (besides the shared errors.ts and config.ts at the root). */
const MAY_IMPORT: Record<string, string[]> = {
  // The command line sits at the top: it may import anything below it (and server.ts at the root).
  cli: ['http', 'auth', 'activities', 'queries', 'admin', 'delivery', 'store', 'otp', 'contracts', 'keys', 'wire'],
  http: ['auth', 'activities', 'queries', 'admin', 'delivery', 'store', 'otp', 'contracts', 'keys', 'wire'],
  auth: ['activities', 'store', 'otp', 'keys', 'wire'],
  queries: ['activities', 'store', 'wire'],
  activities: ['store', 'otp', 'contracts', 'keys', 'policy', 'wire'],
  admin: ['store', 'otp', 'keys', 'wire'],
  delivery: ['store', 'otp', 'wire'],
  // The store knows tables, not the domain: a message's payload is its caller's.
  store: ['wire'],
  otp: ['keys', 'wire'],
  contracts: ['wire'],
  keys: ['wire'],
  policy: ['wire'],
  // What every layer shares about the wire: the JSON document's checks, field violations, number patterns.
  wire: [],
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
        if (!['otp', 'contracts', 'keys', 'policy', 'wire'].includes(folder)) continue;
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

test('no file imports, through any chain of imports (type imports included), a file that imports it', () => {
  const imports = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = [...fs.readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^']*?from\s*'(\.[^']+)'/gm)].map(([, specifier]) =>
      path.resolve(path.dirname(file), specifier!),
    );
    imports.set(file, targets);
  }
  // Tarjan's strongly connected components: each component of more than one file is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(path.relative(SRC, member));
      } while (member !== file);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(circles, []);
});
