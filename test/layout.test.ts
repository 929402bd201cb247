// The architecture is visible in the imports (docs/architecture.md, "The layers", states this same
// rule; layers.json declares it, read here and by the linter, eslint.config.js): the command line on top; http, which reaches the store only through queries, activities,
// admin and auth (the server at the root composes the store and the delivery worker and hands them
// in); queries, which answer with what activities declare; activities, the engine over auth's
// Principal and the store; admin; auth; delivery; the store, the one folder that speaks SQL, which imports only wire/ (it knows tables, not the
// domain). otp/,
// contracts/, keys/, chains/ and policy/ are pure rules any layer may use, importing no folder but keys/
// (otp/ reads P-256 keys, chains/ signs with wallet keys) and wire/, the leaf every folder shares;
// readable/, pure too, joins chains/, contracts/ and policy/ (a transaction as policies read it). No file imports, through a chain
// of imports, one that imports it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import layers from '../layers.json' with { type: 'json' };
import { ROOT } from './support/root.ts';

const SRC = path.join(ROOT, 'src');

/** What each folder may import besides itself: folders, and files at the root (layers.json, "pure" standing for the pure rules). */
const MAY_IMPORT: Record<string, string[]> = Object.fromEntries(
  Object.entries(layers.mayImport).map(([folder, allowed]) => [folder, allowed.flatMap((name) => (name === 'pure' ? layers.pure : [name]))]),
);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('no folder imports a folder it may not (none imports one above it)', () => {
  const wrong: string[] = [];
  for (const file of sources(SRC)) {
    const name = path.relative(ROOT, file).split(path.sep).join('/');
    const folder = path.relative(SRC, file).split(path.sep)[0]!;
    const allowed = MAY_IMPORT[folder];
    if (!allowed) continue; // the composition at the root (cli.ts, server.ts) and the shared config.ts, errors.ts
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), specifier!)).split(path.sep);
      if ((target.length > 1 && target[0] === folder) || allowed.includes(target[0]!)) continue;
      wrong.push(`${name} imports ${specifier}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the configuration (config.ts and config/) imports nothing of the tree but its own declarations', () => {
  const specifiers = [...fs.readFileSync(path.join(SRC, 'config.ts'), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map(([, specifier]) => specifier!);
  assert.deepEqual(specifiers.filter((specifier) => !specifier.startsWith('./config/')), []);
});

test('only src/store speaks SQL', () => {
  const statement = /\b(SELECT\s+[\s\S]{0,200}?\bFROM|INSERT\s+INTO|UPDATE\s+[a-z_]+\s+SET|DELETE\s+FROM)\b/;
  const outside = sources(SRC)
    .filter((file) => !path.relative(SRC, file).startsWith(`store${path.sep}`))
    .filter((file) => statement.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(ROOT, file));
  assert.deepEqual(outside, []);
});

test('handlers plan effects as data: from src/store/ they import effects.ts, types, and the reads they make before planning', () => {
  // Reads: a handler may look up what it must know to plan (an OTP, a user by contact, an endpoint),
  // never build a statement part; those come from src/store/effects.ts's operations.
  const read = /^(find[A-Z]\w*|userTagMembers|countWrongGuess|openTargetKey)$/;
  const wrong: string[] = [];
  for (const file of sources(path.join(SRC, 'activities', 'handlers'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const [, names, specifier] of text.matchAll(/^import\s+(?!type\b)\{([^}]*)\}\s+from\s+'([^']+)'/gm)) {
      const target = path.relative(SRC, path.resolve(path.dirname(file), specifier!)).split(path.sep).join('/');
      if (!target.startsWith('store/') || target === 'store/effects.ts') continue;
      const values = names!.split(',').map((name) => name.trim()).filter((name) => name !== '' && !name.startsWith('type '));
      for (const name of values) if (!read.test(name)) wrong.push(`${path.relative(ROOT, file)} imports ${name} from ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
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
