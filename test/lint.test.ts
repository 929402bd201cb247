// The linter's configuration (eslint.config.js) reports what the layers forbid (layers.json): it runs
// here, as `npm run lint` does, on a small tree of its own, a src/ whose files break the layers and
// make an import circle. The type-aware rules, which need a tsconfig.json and the whole program, are
// left out here: they read types, not paths.
import { ESLint } from 'eslint';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from './support/root.ts';

const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-lint-'));
after(() => fs.rmSync(tree, { recursive: true, force: true }));

const files: Record<string, string> = {
  // The store knows tables, not the domain: it may not import a policy.
  'src/store/table.ts': "import { rule } from '../policy/rule.ts';\nexport const table = rule;\n",
  'src/policy/rule.ts': "import { kind } from '../wire/kind.ts';\nexport const rule = kind;\n",
  // A pure rule may import wire/, and nothing at the root but errors.ts.
  'src/wire/kind.ts': "export const kind = 'kind';\n",
  'src/keys/key.ts': "import { kind } from '../wire/kind.ts';\nimport { setting } from '../config.ts';\nexport const key = kind + setting;\n",
  'src/config.ts': "export const setting = 'setting';\n",
  // http/ reaches the store only through the layers between: queries/ it may import, store/ not.
  'src/http/route.ts':
    "import { answer } from '../queries/answer.ts';\nimport type { table } from '../store/table.ts';\nexport const route = (t: typeof table) => answer + t;\n",
  'src/queries/answer.ts': "export const answer = 'answer';\n",
  // Two files that import each other.
  'src/activities/first.ts': "import { second } from './second.ts';\nexport const first = () => second();\n",
  'src/activities/second.ts': "import { first } from './first.ts';\nexport const second = (): unknown => first;\n",
};
for (const [name, text] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(tree, name)), { recursive: true });
  fs.writeFileSync(path.join(tree, name), text);
}
fs.writeFileSync(path.join(tree, 'package.json'), JSON.stringify({ type: 'module' }));
fs.copyFileSync(path.join(ROOT, 'eslint.config.js'), path.join(tree, 'eslint.config.js'));
fs.copyFileSync(path.join(ROOT, 'layers.json'), path.join(tree, 'layers.json'));
fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'), 'dir');

let linted: Promise<string[]> | undefined;
/** What the linter reports on the tree, each finding as `file:line rule message`. */
const findings = (): Promise<string[]> => (linted ??= lint());

async function lint(): Promise<string[]> {
  const eslint = new ESLint({
    cwd: tree,
    overrideConfig: {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off' },
    },
  });
  const results = await eslint.lintFiles(['src']);
  return results.flatMap((result) =>
    result.messages.map((message) => `${path.relative(tree, result.filePath)}:${message.line} ${message.ruleId} ${message.message}`),
  );
}

test('the linter reports each import the layers forbid, with the rule, and no other', async () => {
  const found = await findings();
  const restricted = found.filter((line) => line.includes('import-x/no-restricted-paths')).sort();
  assert.equal(restricted.length, 3, found.join('\n'));
  assert.match(restricted[0]!, /^src\/http\/route\.ts:2 .*"\.\.\/store\/table\.ts".* src\/http\/ may import only authProxy\/, queries\/, activities\/, admin\/, auth\/, otp\//);
  assert.match(restricted[1]!, /^src\/keys\/key\.ts:2 .*"\.\.\/config\.ts".* src\/keys\/ may import only wire\/, errors\.ts \(layers\.json/);
  assert.match(restricted[2]!, /^src\/store\/table\.ts:1 .*"\.\.\/policy\/rule\.ts".* src\/store\/ may import only wire\/, errors\.ts, config\.ts/);
});

test('the linter reports an import circle', async () => {
  const circles = (await findings()).filter((line) => line.includes('import-x/no-cycle')).sort();
  assert.deepEqual(
    circles.map((line) => line.split(' ')[0]),
    ['src/activities/first.ts:1', 'src/activities/second.ts:1'],
  );
});
