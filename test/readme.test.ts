// The README documents every setting the configuration module reads, and the commands it shows exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/processes.ts';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

test('every SIGNET_* variable read in src/config.ts has a row in the configuration table', () => {
  const source = fs.readFileSync(path.join(ROOT, 'src', 'config.ts'), 'utf8');
  const variables = [...new Set(source.match(/\bSIGNET_[A-Z0-9_]*[A-Z0-9]\b(?!_)/g))];
  assert.ok(variables.length >= 15, `found ${variables.length} variables`);
  const missing = variables.filter((name) => !readme.includes(`| \`${name}\``));
  assert.deepEqual(missing, []);
});

test('the set-up commands and scripts the README names exist', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const command of ['npm install', 'npm start', 'npm test', 'npm run typecheck']) assert.ok(readme.includes(command), command);
  for (const script of ['start', 'test', 'typecheck']) assert.ok(pkg.scripts[script], script);
  assert.equal(pkg.bin.signet, 'bin/signet.js');
  assert.ok(fs.existsSync(path.join(ROOT, 'examples', 'submit.ts')));
});
