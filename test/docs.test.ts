// The user documentation in docs/ says what Signet does: every request body it shows is JSON that the
// activity's own parameter schema accepts, every policy expression it shows compiles as the kind it
// is given as, every `signet` command it shows exists, and the README links each page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { activityHandlers } from '../src/activities/registry.ts';
import { voteRoutes } from '../src/activities/lifecycle/votes.ts';
import { findCommand } from '../src/cli/command.ts';
import { COMMANDS } from '../src/cli/commands.ts';
import { compileExpression, type ExpressionKind } from '../src/policy/index.ts';
import { ROOT } from './support/root.ts';

const DOCS = path.join(ROOT, 'docs');
const pages = fs.readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const read = (page: string) => fs.readFileSync(path.join(DOCS, page), 'utf8');
const blocks = (text: string, language: string) => [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

test('the README links every page of docs/', () => {
  assert.ok(pages.includes('authorization.md'));
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  for (const page of pages) assert.ok(readme.includes(`(docs/${page})`), `README.md does not link docs/${page}`);
});

test("every request body is JSON its activity's parameter schema accepts; every policy expression compiles", () => {
  const bodies = pages.flatMap((page) => blocks(read(page), 'json').map((text) => ({ page, body: JSON.parse(text) as Record<string, any> })));
  const checked: string[] = [];
  const expressions: Array<[string, ExpressionKind]> = [];
  for (const { page, body } of bodies) {
    if (typeof body.type !== 'string') continue;
    assert.match(body.organizationId, /^[0-9a-f-]{36}$/, `${page}: ${body.type}`);
    assert.match(body.timestampMs, /^\d{13}$/, `${page}: ${body.type}`);
    if (body.type === 'ACTIVITY_TYPE_CREATE_POLICY_V3') {
      if (body.parameters.condition !== undefined) expressions.push([body.parameters.condition, 'condition']);
      if (body.parameters.consensus !== undefined) expressions.push([body.parameters.consensus, 'consensus']);
      assert.match(body.parameters.effect, /^EFFECT_(ALLOW|DENY)$/);
    }
    if (body.type === 'ACTIVITY_TYPE_APPROVE_ACTIVITY' || body.type === 'ACTIVITY_TYPE_REJECT_ACTIVITY') {
      assert.match(body.parameters.fingerprint, /^sha256:[0-9a-f]{64}$/, `${page}: ${body.type}`);
    }
    // Bodies of activity types this build has a handler for are checked by that handler's schema.
    const handler = [...activityHandlers, ...voteRoutes].find((h) => h.activityType === body.type);
    if (!handler) continue;
    const parsed = handler.parameters.safeParse(body.parameters);
    assert.ok(parsed.success, `${page}: ${body.type}: ${JSON.stringify(parsed.error?.issues)}`);
    checked.push(body.type);
  }
  assert.ok(checked.length >= 4, `only ${checked.join(', ')} checked`);
  assert.ok(expressions.length >= 4);

  // The expressions the text and the commands show, in backticks after `condition`/`consensus`, or as flags.
  const text = read('authorization.md');
  for (const [, kind, source] of text.matchAll(/--(condition|consensus) "([^"]+)"/g)) expressions.push([source!, kind as ExpressionKind]);
  for (const source of ['activity.resource == \'AUTH\' && activity.action == \'CREATE\' || activity.kind == \'VERIFY_OTP\'', "activity.kind == 'DELETE_SMART_CONTRACT_INTERFACE'"]) {
    assert.ok(text.includes(`\`${source}\``), source);
    expressions.push([source, 'condition']);
  }
  for (const [, source] of text.matchAll(/`((?:approvers|credentials)\.[^`]*\))`/g)) {
    if (!source!.includes('…')) expressions.push([source!, 'consensus']);
  }
  assert.ok(expressions.length >= 10, `${expressions.length} expressions`);
  for (const [source, kind] of expressions) {
    const compiled = compileExpression(source, kind);
    assert.ok(compiled.ok, `${kind} ${source}: ${compiled.ok ? '' : compiled.error.message}`);
  }
});

test('every signet command the pages show exists', () => {
  let shown = 0;
  for (const page of pages) {
    for (const block of blocks(read(page), 'sh')) {
      for (const line of block.split('\n')) {
        const words = line.trim().split(/\s+/);
        if (words[0] !== 'signet') continue;
        assert.doesNotThrow(() => findCommand(COMMANDS, words.slice(1)), `${page}: ${line}`);
        shown++;
      }
    }
  }
  assert.ok(shown >= 8, `${shown} commands`);
});
