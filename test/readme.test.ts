// The docs document every setting the configuration module reads (docs/configuration.md) and every email
// template variable (docs/email.md), and the commands the README shows exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ALL_SETTINGS, configurationTable } from '../src/config.ts';
import { RESERVED_VARIABLES } from '../src/otp/emailTemplates.ts';
import { ROOT } from './support/root.ts';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const doc = (page: string) => fs.readFileSync(path.join(ROOT, 'docs', page), 'utf8');

test('the configuration table is the one the settings declare (type, default, meaning)', () => {
  const table = configurationTable();
  assert.ok(
    doc('configuration.md').includes(table),
    `docs/configuration.md's configuration table differs from src/config/settings.ts; replace it with:\n\n${table}\n`,
  );
});

test('no SIGNET_* variable is read outside the declared settings', () => {
  const declared = new Set(ALL_SETTINGS.map((setting) => setting.env));
  const files = [path.join(ROOT, 'src', 'config.ts'), ...fs.readdirSync(path.join(ROOT, 'src', 'config')).map((file) => path.join(ROOT, 'src', 'config', file))];
  const source = files.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  const named = [...new Set(source.match(/\bSIGNET_[A-Z0-9_]*[A-Z0-9]\b(?!_)/g))];
  assert.ok(declared.size >= 30, `found ${declared.size} settings`);
  assert.deepEqual(named.filter((name) => !declared.has(name)), []);
});

test('the set-up commands and scripts the README names exist', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  for (const command of ['npm install', 'npm start', 'npm test', 'npm run typecheck']) assert.ok(readme.includes(command), command);
  for (const script of ['start', 'test', 'typecheck']) assert.ok(pkg.scripts[script], script);
  assert.equal(pkg.bin.signet, 'bin/signet.js');
  assert.ok(fs.existsSync(path.join(ROOT, 'examples', 'submit.ts')));
});

test('the email template variables table names every variable Signet provides', () => {
  const email = doc('email.md');
  const section = email.slice(email.indexOf('## Your own email'));
  const documented = [...section.matchAll(/^\| (`\{\{\w+\}\}`(?:, `\{\{\w+\}\}`)*) \|/gm)].flatMap(([, names]) => names!.match(/\w+/g)!);
  assert.deepEqual(documented.sort(), [...RESERVED_VARIABLES].sort());
});
