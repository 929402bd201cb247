// Composing statements (src/store/sql.ts): the text and parameters of nested fragments and lists, the
// text made once per shape and never shared by two shapes, and the parameters as they are sent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compile, join, raw, sql, substitute, type Sql } from '../src/store/sql.ts';

const condition = (column: string, value: unknown): Sql => sql`${raw(column)} = ${value}`;
const select = (values: unknown[], separator = ' AND '): Sql =>
  sql`SELECT x FROM t WHERE ${join(values.map((value, i) => condition(`c${i}`, value)), separator)} AND d = ${'last'}`;

describe('compile', () => {
  test('numbers the parameters in order through nested fragments and lists', () => {
    assert.deepEqual(compile(select([1, 'two'])), {
      text: 'SELECT x FROM t WHERE c0 = $1 AND c1 = $2 AND d = $3',
      values: [1, 'two', 'last'],
    });
    assert.deepEqual(compile(sql`SELECT ${join([])}1`), { text: 'SELECT 1', values: [] });
    assert.deepEqual(compile(raw('SELECT 1')), { text: 'SELECT 1', values: [] });
  });

  test('gives one shape the same text, whatever the values', () => {
    const first = compile(select([1, 2]));
    const second = compile(select(['a', null]));
    assert.equal(first.text, second.text);
    assert.deepEqual(second.values, ['a', null, 'last']);
  });

  test('gives every other shape its own text', () => {
    const texts = [
      compile(select([1])).text,
      compile(select([1, 2])).text,
      compile(select([1, 2, 3])).text,
      compile(select([1, 2], ' OR ')).text,
      compile(select([sql`now()`, 2])).text,
      compile(sql`SELECT x FROM t WHERE ${join([condition('c0', 1), condition('c9', 2)], ' AND ')} AND d = ${'last'}`).text,
    ];
    assert.deepEqual(texts, [
      'SELECT x FROM t WHERE c0 = $1 AND d = $2',
      'SELECT x FROM t WHERE c0 = $1 AND c1 = $2 AND d = $3',
      'SELECT x FROM t WHERE c0 = $1 AND c1 = $2 AND c2 = $3 AND d = $4',
      'SELECT x FROM t WHERE c0 = $1 OR c1 = $2 AND d = $3',
      'SELECT x FROM t WHERE c0 = now() AND c1 = $1 AND d = $2',
      'SELECT x FROM t WHERE c0 = $1 AND c9 = $2 AND d = $3',
    ]);
  });

  test('tells a parameter from a fragment in each place', () => {
    const pair = (first: unknown, second: unknown) => sql`A ${first} B ${second} C`;
    assert.deepEqual(
      [pair(1, 2), pair(raw('x'), 2), pair(1, raw('x')), pair(raw('x'), raw('x')), pair(raw('y'), 2)].map((fragment) => compile(fragment).text),
      ['A $1 B $2 C', 'A x B $1 C', 'A $1 B x C', 'A x B x C', 'A y B $1 C'],
    );
  });

  test('composes the text of long lists too', () => {
    const values = Array.from({ length: 5000 }, (_, i) => i);
    const { text, values: sent } = compile(sql`SELECT ${join(values.map((value) => sql`${value}`))}`);
    assert.equal(text, `SELECT ${values.map((_, i) => `$${i + 1}`).join(', ')}`);
    assert.deepEqual(sent, values);
  });

  test('follows a substituted fragment', () => {
    const target = raw('target');
    const row = sql`INSERT INTO t SELECT ${1} FROM ${target}`;
    assert.equal(compile(substitute(row, target, raw('w0_target'))).text, 'INSERT INTO t SELECT $1 FROM w0_target');
    assert.equal(compile(substitute(row, target, raw('w1_target'))).text, 'INSERT INTO t SELECT $1 FROM w1_target');
    assert.equal(compile(row).text, 'INSERT INTO t SELECT $1 FROM target');
  });

  test('sends a valid Date as its ISO text, and every other value as it is', () => {
    const moment = new Date('2026-12-07T10:11:12.345Z');
    const invalid = new Date(Number.NaN);
    const list = ['a'];
    const { values } = compile(sql`SELECT ${moment}::timestamptz, ${invalid}, ${list}::text[], ${null}, ${7}`);
    assert.deepEqual(values, ['2026-12-07T10:11:12.345Z', invalid, list, null, 7]);
    assert.equal(values[2], list);
    const later = new Date('2026-12-07T10:11:13Z');
    const twice = compile(sql`SELECT ${moment}, ${new Date(moment.getTime())}, ${later}, ${moment}`);
    assert.deepEqual(twice.values, ['2026-12-07T10:11:12.345Z', '2026-12-07T10:11:12.345Z', '2026-12-07T10:11:13.000Z', '2026-12-07T10:11:12.345Z']);
  });
});
