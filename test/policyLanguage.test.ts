// The policy language (src/policy/): what each operator means, where parse and type errors point, the
// bounds on size and nesting, and evaluation failures (absent fields, wrong types, ranges, budget) as
// values. Pure functions, so no server is started.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compileExpression,
  evaluate,
  MAX_EXPRESSION_LENGTH,
  paramsForPolicy,
  MAX_NESTING,
  type Bindings,
  type CompiledExpression,
  type ExpressionKind,
  type PolicyValue,
} from '../src/policy/index.ts';

const ALICE = { id: 'u-alice', tags: ['t1', 'admin'], email: 'alice@example.com', name: 'Alice' };
const BOB = { id: 'u-bob', tags: ['t2'], email: 'bob@example.com', name: 'Bob' };
const KEY = {
  id: 'k-1',
  user_id: 'u-alice',
  type: 'CREDENTIAL_TYPE_API_KEY_P256',
  public_key: '02' + 'ab'.repeat(32),
  credential_id: '',
} as const;

function activity(params: { [field: string]: PolicyValue } = {}, type = 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3'): Bindings {
  return { activity: { type, kind: 'INIT_OTP_AUTH', resource: 'AUTH', action: 'CREATE', params } };
}
const CONSENSUS: Bindings = { approvers: [ALICE, BOB], credentials: [KEY] };

function compiled(source: string, kind: ExpressionKind = 'condition'): CompiledExpression {
  const result = compileExpression(source, kind);
  assert.ok(result.ok, `${source}: ${result.ok ? '' : result.error.message}`);
  return result.value;
}

/** The value of a condition over `params` (or of a consensus over Alice and Bob). */
function run(source: string, bindings: Bindings = activity({ otp_length: 6, list: [1, 2, 3], map: { 'a-b': 'x' } })): boolean {
  const kind: ExpressionKind = 'activity' in bindings ? 'condition' : 'consensus';
  const result = evaluate(compiled(source, kind), bindings);
  assert.ok(result.ok, `${source}: ${result.ok ? '' : result.error.message}`);
  return result.value;
}

function compileError(source: string, kind: ExpressionKind = 'condition'): string {
  const result = compileExpression(source, kind);
  assert.ok(!result.ok, `${source} compiled`);
  assert.match(result.error.message, new RegExp(`^at ${result.error.position}: `));
  return result.error.message;
}

function evaluationError(source: string, bindings: Bindings = activity({ otp_length: 6, list: [1, 2, 3] })): string {
  const result = evaluate(compiled(source, 'activity' in bindings ? 'condition' : 'consensus'), bindings);
  assert.ok(!result.ok, `${source} evaluated to ${result.ok ? result.value : ''}`);
  return result.error.message;
}

describe('grammar', () => {
  test('&& and || with their truth tables, || binding looser than &&', () => {
    for (const [a, b] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ] as const) {
      assert.equal(run(`${a} && ${b}`), a && b);
      assert.equal(run(`${a} || ${b}`), a || b);
    }
    assert.equal(run('true || false && false'), true, '&& first: true || (false && false)');
    assert.equal(run('(true || false) && false'), false);
    assert.equal(run('false && true || true'), true, '(false && true) || true');
  });

  test('comparisons of integers, strings and booleans', () => {
    assert.equal(run('1 < 2'), true);
    assert.equal(run('2 < 2'), false);
    assert.equal(run('2 <= 2'), true);
    assert.equal(run('3 > 2'), true);
    assert.equal(run('2 >= 3'), false);
    assert.equal(run('-1 < 0'), true);
    assert.equal(run('2 == 2'), true);
    assert.equal(run('2 != 2'), false);
    assert.equal(run("'a' != 'b'"), true);
    assert.equal(run("'a' == 'a'"), true);
    assert.equal(run('true == true'), true);
    assert.equal(run('true != false'), true);
    assert.equal(run("'it\\'s' == 'it'"), false, 'an escaped quote inside a string');
    assert.equal(run("'it\\'s'[2] == '\\''"), true);
    assert.equal(run("'a\\\\b'[1] == '\\\\'"), true, 'an escaped backslash is one character');
    assert.equal(run("activity.params.otp_length >= 6 && activity.params.otp_length < 9"), true);
  });

  test('in, contains and count', () => {
    assert.equal(run('1 in [1, 2, 3]'), true);
    assert.equal(run('4 in [1, 2, 3]'), false);
    assert.equal(run("'b' in ['a', 'b']"), true);
    assert.equal(run('1 in []'), false);
    assert.equal(run('[1, 2, 3].contains(2)'), true);
    assert.equal(run('[1, 2, 3].contains(5)'), false);
    assert.equal(run('[1, 2, 3].count() == 3'), true);
    assert.equal(run('[].count() == 0'), true);
    assert.equal(run('3 in activity.params.list'), true);
  });

  test('indexes and slices of lists and strings; slices exclude their end', () => {
    assert.equal(run('[1, 2, 3][0] == 1'), true);
    assert.equal(run('[1, 2, 3][2] == 3'), true);
    assert.equal(run("'abc'[0] == 'a'"), true);
    assert.equal(run('[1, 2, 3][0..2].count() == 2'), true);
    assert.equal(run('[1, 2, 3][0..2].contains(3)'), false, 'index 2 is not in [0..2]');
    assert.equal(run('[1, 2, 3][1..3].contains(3)'), true);
    assert.equal(run('[1, 2, 3][1..1].count() == 0'), true);
    assert.equal(run("'abcdef'[1..3] == 'bc'"), true);
    assert.equal(run("'abc'[0..3] == 'abc'"), true);
  });

  test('fields, and map access with a quoted key', () => {
    assert.equal(run("activity.type == 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3'"), true);
    assert.equal(run("activity.kind == 'INIT_OTP_AUTH'"), true);
    assert.equal(run("activity.params['otp_length'] == 6"), true);
    assert.equal(run("activity.params.map['a-b'] == 'x'"), true, 'a key that is not an identifier');
    assert.equal(run("activity['type'] == 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3'"), true, 'quoted access to a struct field');
    assert.equal(run(`approvers[0].tags[1] == 'admin'`, CONSENSUS), true);
    assert.equal(run(`credentials[0].type == 'CREDENTIAL_TYPE_API_KEY_P256'`, CONSENSUS), true);
  });

  test('all, any and filter bind their variable; an inner variable shadows an outer one and a keyword', () => {
    assert.equal(run('[1, 1, 1].all(x, x == 1)'), true);
    assert.equal(run('[1, 2, 1].all(x, x == 1)'), false);
    assert.equal(run('[].all(x, x == 1)'), true);
    assert.equal(run('[1, 2, 3].any(x, x == 3)'), true);
    assert.equal(run('[].any(x, x == 1)'), false);
    assert.equal(run('[1, 2, 3].filter(x, x >= 2).count() == 2'), true);
    assert.equal(run('[1, 2, 3].filter(x, x >= 2)[0] == 2'), true);
    assert.equal(run('[[1, 2], [3]].any(x, x.any(x, x == 3))'), true, 'the inner x is an item of the inner list');
    assert.equal(run('[[1, 2], [3]].all(x, x.count() >= 1 && x.any(y, y in x))'), true, 'the outer x is still bound');
    assert.equal(run('[1, 2].any(x, [3].any(y, x == 2) && x == 2)'), true, 'x is the outer item again after the inner call');
    assert.equal(run("approvers.any(user, user.id == 'u-bob')", CONSENSUS), true);
    assert.equal(run("approvers.filter(user, user.tags.contains('t1')).count() == 1", CONSENSUS), true);
    assert.equal(run('approvers.any(approvers, approvers.id == \'u-alice\')', CONSENSUS), true, 'a variable may shadow a keyword');
    assert.equal(run("[activity.params.list].any(activity, activity.contains(2))"), true);
  });

  test('examples from the ecosystem documentation', () => {
    assert.equal(run("activity.resource == 'USER' && activity.action == 'CREATE'"), false);
    assert.equal(run("activity.resource == 'AUTH' && activity.action == 'CREATE'"), true);
    assert.equal(run("approvers.any(user, user.id == 'u-alice')", CONSENSUS), true);
    assert.equal(run("approvers.count() >= 2", CONSENSUS), true);
    assert.equal(run("credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')", CONSENSUS), false);
    assert.equal(run("credentials.all(credential, credential.user_id == 'u-alice')", CONSENSUS), true);
    assert.equal(run("approvers.filter(user, user.tags.contains('admin')).count() >= 1", CONSENSUS), true);
    const deleteSelf = activity({ user_ids: ['u-alice'] }, 'ACTIVITY_TYPE_DELETE_USERS');
    assert.equal(run("activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'u-alice' in activity.params.user_ids", deleteSelf), true);
    assert.equal(run('[1,2,3].all(x, x > 0) && \'abc\'[0..2] == \'ab\''), true);
  });

  test('whitespace and newlines between tokens are ignored', () => {
    assert.equal(run(" activity.params.otp_length\n\t==  6 &&\r\n[ 1 ,2 ] [ 0 ] == 1 "), true);
  });
});

describe('parse errors name the 1-based position and what was expected', () => {
  const cases: [string, string][] = [
    ["(activity.type == 'X'", "at 22: expected ')', found the end of the expression"],
    ["activity.type == 'X' && ", 'at 25: expected a value, found the end of the expression'],
    ["activity.type = 'X'", "at 15: unexpected character '='"],
    ['activity.type == "X"', `at 18: unexpected character '"' (strings take single quotes)`],
    ["activity.type == 'X", "at 18: unterminated string: expected a closing '"],
    ["'a\\nb' == 'a'", "at 3: expected \\' or \\\\ after a backslash in a string"],
    ['[1, 2', "at 6: expected ',' or ']', found the end of the expression"],
    ['[1, 2, 3][0 1] == 1', "at 13: expected ']' or '..', found '1'"],
    ['[1].size() == 1', "at 5: unknown function 'size': expected one of all, any, contains, count, filter"],
    ['[1].all(1, true)', "at 9: expected a variable name (all(item, predicate)), found '1'"],
    ['[1].all(x true)', "at 11: expected ',', found 'true'"],
    ['[1].all(true, true)', "at 9: expected a variable name (all(item, predicate)), found 'true'"],
    ['activity.', "at 10: expected a field or function name after '.', found the end of the expression"],
    ['1 == 1 == 1', "at 8: expected '&&', '||' or ')' (comparisons do not chain; add parentheses)"],
    ['true true', "at 6: expected '&&', '||' or the end of the expression, found 'true'"],
    ['in', "at 1: expected a value, found 'in'"],
    ['', 'at 1: expected a value, found the end of the expression'],
    ['1 < 115792089237316195423570985008687907853269984665640564039457584007913129639936', 'at 5: integer 115792089237316195423570… is out of range (-2^255 to 2^256 - 1)'],
    ['1 < 2)', "at 6: expected '&&', '||' or the end of the expression, found ')'"],
  ];
  for (const [source, message] of cases) {
    test(JSON.stringify(source), () => assert.equal(compileError(source), message));
  }
});

describe('type errors, checked when the policy is written', () => {
  const cases: [string, ExpressionKind, string][] = [
    ["activity.type == 'X' && 5", 'condition', 'at 25: expected bool, found int'],
    ["5 || activity.type == 'X'", 'condition', 'at 1: expected bool, found int'],
    ["activity.type == 5", 'condition', 'at 18: expected string, found int'],
    ["activity.type < 'b'", 'condition', 'at 1: expected int, found string'],
    ["'a' in [1, 2]", 'condition', 'at 1: expected int, found string'],
    ["[1, 'a'].count() == 2", 'condition', "at 5: expected int like the list's first item, found string"],
    ['activity.type', 'condition', 'at 1: expected bool, found string'],
    ["activity.foo == 'x'", 'condition', "at 10: Activity has no field 'foo': expected one of type, kind, resource, action, params"],
    ["activity['foo'] == 'x'", 'condition', "at 10: Activity has no field 'foo': expected one of type, kind, resource, action, params"],
    ["approvers.count() > 1", 'condition', "at 1: unknown keyword 'approvers' ('approvers' is a consensus keyword): expected activity, eth, solana, wallet, wallet_account, private_key in a condition"],
    ["activity.type == 'X'", 'consensus', "at 1: unknown keyword 'activity' ('activity' is a condition keyword): expected approvers, credentials in a consensus"],
    ["wallets.count() == 1", 'condition', "at 1: unknown keyword 'wallets': expected activity, eth, solana, wallet, wallet_account, private_key in a condition"],
    ["wallet.alias == 'x'", 'condition', "at 8: Wallet has no field 'alias': expected one of id, imported, exported, label"],
    ["wallet.id == 'x'", 'consensus', "at 1: unknown keyword 'wallet' ('wallet' is a condition keyword): expected approvers, credentials in a consensus"],
    ["approvers.any(u, u.alias == 'x')", 'consensus', "at 20: User has no field 'alias': expected one of id, tags, email, name"],
    ["approvers.any(u, v.id == 'x')", 'consensus', "at 18: unknown keyword 'v': expected approvers, credentials, u in a consensus"],
    ["approvers.any(u, u.id == 'x') && u.id == 'y'", 'consensus', "at 34: unknown keyword 'u': expected approvers, credentials in a consensus"],
    ["'u-alice' in approvers", 'consensus', 'at 14: expected a list of bool, int or string, found list<User>'],
    ['approvers.contains(1)', 'consensus', 'at 1: expected a list of bool, int or string, found list<User>'],
    ['approvers.any(u, u.tags)', 'consensus', 'at 18: expected bool, found list<string>'],
    ["approvers[0] == 'x'", 'consensus', 'at 1: expected bool, int or string, found User'],
    ['approvers.count().count() == 1', 'consensus', 'at 1: expected list, found int'],
    ["approvers['0'].id == 'x'", 'consensus', 'at 11: expected int, found string'],
    ["approvers[0][0] == 'x'", 'consensus', 'at 14: expected a field name in quotes to index User'],
    ["activity.type.id == 'x'", 'condition', "at 15: expected a struct before '.id', found string"],
    ["activity.type[0..true] == 'x'", 'condition', 'at 18: expected int, found bool'],
    ['[1, 2] == [1, 2]', 'condition', 'at 1: expected bool, int or string, found list<int>'],
  ];
  for (const [source, kind, message] of cases) {
    test(`${kind} ${JSON.stringify(source)}`, () => assert.equal(compileError(source, kind), message));
  }

  test('activity.params is dynamic: any field and use type-checks, and is checked when evaluated', () => {
    for (const source of [
      'activity.params.anything == 1',
      "activity.params.a.b['c'][0].d == 'x'",
      'activity.params.items.all(i, i.ok)',
      'activity.params.flag',
      "activity.params.n > 3 && 'x' in activity.params.list",
      "activity.params.text[0..2] == 'ab'",
    ]) {
      assert.ok(compileExpression(source, 'condition').ok, source);
    }
  });
});

describe('bounds on size and nesting', () => {
  test(`an expression of ${MAX_EXPRESSION_LENGTH} characters is accepted, one more is not`, () => {
    const atLimit = `'${'a'.repeat(MAX_EXPRESSION_LENGTH - 9)}' == 'a'`;
    assert.equal(atLimit.length, MAX_EXPRESSION_LENGTH);
    assert.equal(run(atLimit), false);
    assert.equal(compileError(`${atLimit} `), `at ${MAX_EXPRESSION_LENGTH + 1}: expected at most ${MAX_EXPRESSION_LENGTH} characters, found ${MAX_EXPRESSION_LENGTH + 1}`);
  });

  test(`${MAX_NESTING} nested brackets are accepted, ${MAX_NESTING + 1} are not, whatever the brackets`, () => {
    const parens = (depth: number) => `${'('.repeat(depth)}true${')'.repeat(depth)}`;
    assert.equal(run(parens(MAX_NESTING)), true);
    assert.equal(compileError(parens(MAX_NESTING + 1)), `at ${MAX_NESTING + 1}: nesting deeper than ${MAX_NESTING} brackets`);
    const lists = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}.count() == 1`;
    assert.equal(run(lists(MAX_NESTING)), true);
    assert.match(compileError(lists(MAX_NESTING + 1)), /nesting deeper than 64 brackets/);
    const calls = (depth: number) => `${'[true].all(x, '.repeat(depth)}true${')'.repeat(depth)}`;
    assert.equal(run(calls(MAX_NESTING)), true);
    assert.match(compileError(calls(MAX_NESTING + 1)), /nesting deeper than 64 brackets/);
  });

  test('long flat chains are not nesting: 600 && operands and 1,000 field accesses', () => {
    assert.equal(run(Array.from({ length: 600 }, () => 'true').join('&&')), true);
    const deep: { [field: string]: PolicyValue } = { v: 1 };
    let params: { [field: string]: PolicyValue } = deep;
    for (let i = 0; i < 1000; i++) params = { a: params };
    assert.equal(run(`activity.params${'.a'.repeat(1000)}.v == 1`, activity(params)), true);
  });
});

describe('evaluation errors are values', () => {
  test('an absent field named by the activity itself is not echoed in the error (it may be a secret)', () => {
    const bindings = activity({ code: '123456', map: { a: 1 } });
    assert.equal(evaluationError('activity.params.map[activity.params.code] == 1', bindings), 'at 21: no field of the computed name');
    assert.equal(evaluationError("activity.params.code[activity.params.code] == '1'", bindings), 'at 22: expected int index, found string');
  });

  test('an absent field, including inherited JavaScript names', () => {
    assert.equal(evaluationError('activity.params.missing == 1'), "at 17: no field 'missing'");
    assert.equal(evaluationError("activity.params['missing'] == 1"), "at 17: no field 'missing'");
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      assert.equal(evaluationError(`activity.params.${name} == 1`), `at 17: no field '${name}'`);
    }
  });

  test('types that do not meet at evaluation', () => {
    assert.equal(evaluationError("activity.params.otp_length == 'six'"), 'at 28: cannot compare int with string');
    assert.equal(evaluationError('activity.params.list > 1'), 'at 22: expected int > int, found list > int');
    assert.equal(evaluationError('activity.params.otp_length'), 'at 1: expected bool, found int');
    assert.equal(evaluationError('activity.params.otp_length && true'), 'at 1: expected bool, found int');
    assert.equal(evaluationError('activity.params.list.any(x, x)'), 'at 29: expected bool, found int');
    assert.equal(evaluationError('activity.params.otp_length.all(x, x)'), "at 28: expected list before '.all', found int");
    assert.equal(evaluationError('1 in activity.params.otp_length'), 'at 6: expected list, found int');
    assert.equal(evaluationError('activity.params.list in [1]'), 'at 1: expected bool, int or string, found list');
    assert.equal(evaluationError('activity.params.list.x == 1'), "at 22: expected a struct to read the field 'x' from, found list");
  });

  test('indexes and slices out of range', () => {
    assert.equal(evaluationError('activity.params.list[3] == 1'), 'at 22: index 3 out of range for a list of length 3');
    assert.equal(evaluationError('activity.params.list[-1] == 1'), 'at 22: index -1 out of range for a list of length 3');
    assert.equal(evaluationError('activity.params.list[1..4].count() == 3'), 'at 21: slice [1..4] out of range for a list of length 3');
    assert.equal(evaluationError('activity.params.list[2..1].count() == 0'), 'at 21: slice [2..1] out of range for a list of length 3');
    assert.equal(evaluationError("'abc'[3] == 'c'"), 'at 7: index 3 out of range for a string of length 3');
    assert.equal(evaluationError('[].any(x, x[0] == 1) || [[]].any(x, x[0] == 1)'), 'at 39: index 0 out of range for a list of length 0');
  });

  test('&& and || stop at the operand that decides them, so a guard protects a field read', () => {
    assert.equal(run('false && activity.params.missing == 1'), false);
    assert.equal(run('true || activity.params.missing == 1'), true);
    assert.equal(evaluationError('true && activity.params.missing == 1'), "at 25: no field 'missing'");
    assert.equal(evaluationError('false || activity.params.missing == 1'), "at 26: no field 'missing'");
  });

  test('the step budget bounds the cost of nested list functions and long lists', () => {
    const items = Array.from({ length: 2000 }, (_, i) => i);
    const bindings = activity({ items });
    const nested = compiled('activity.params.items.all(a, activity.params.items.all(b, a >= 0))');
    const spent = evaluate(nested, bindings);
    assert.deepEqual(spent, { ok: false, error: { position: 59, message: 'at 59: evaluation exceeded its budget of 100000 steps' } });
    assert.ok(evaluate(compiled('activity.params.items.all(a, a >= 0)'), bindings).ok, '2,000 items × 4 nodes fit');
    const big = activity({ items: Array.from({ length: 200_000 }, (_, i) => i) });
    assert.match(evaluationError('-1 in activity.params.items', big), /exceeded its budget/);
    assert.match(evaluationError('activity.params.items[0..150000].count() > 0', big), /exceeded its budget/);
    assert.equal(evaluate(compiled('[1, 2, 3].all(x, x > 0)'), activity(), { maxSteps: 5 }).ok, false, 'a budget the caller chooses');
  });

  test('a condition evaluated with consensus bindings fails on its unknown keyword', () => {
    assert.deepEqual(evaluate(compiled("activity.type == 'X'"), CONSENSUS), {
      ok: false,
      error: { position: 1, message: "at 1: unknown keyword 'activity'" },
    });
  });
});

describe('Ethereum addresses have no case', () => {
  // USDC's address in its EIP-55 spelling, and the same address in lowercase and in capitals.
  const CHECKSUMMED = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
  const LOWER = CHECKSUMMED.toLowerCase();
  const UPPER = `0x${CHECKSUMMED.slice(2).toUpperCase()}`;
  const OTHER = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
  const SOLANA = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
  const contract = (address: string, type = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM') =>
    activity(paramsForPolicy({ smartContractAddress: address, type, label: 'x', more: { owners: [address] } }), 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE');

  test('activity.params holds every Ethereum address in lowercase, at any depth, whatever case the intent wrote', () => {
    for (const spelling of [CHECKSUMMED, LOWER, UPPER]) {
      const bindings = contract(spelling);
      assert.equal((bindings as any).activity.params.smart_contract_address, LOWER);
      assert.equal((bindings as any).activity.params.more.owners[0], LOWER);
      assert.equal(run(`activity.params.smart_contract_address[0..6] == '${LOWER.slice(0, 6)}'`, bindings), true, 'a part of it is lowercase too');
      assert.equal(run(`activity.params.label == 'x'`, bindings), true, 'other text as it was');
    }
  });

  test('==, !=, in and contains take two addresses as equal whatever their case', () => {
    for (const read of [CHECKSUMMED, LOWER, UPPER]) {
      const bindings = contract(read);
      for (const written of [CHECKSUMMED, LOWER, UPPER]) {
        assert.equal(run(`activity.params.smart_contract_address == '${written}'`, bindings), true, `${read} == ${written}`);
        assert.equal(run(`'${written}' == activity.params.smart_contract_address`, bindings), true);
        assert.equal(run(`activity.params.smart_contract_address != '${written}'`, bindings), false);
        assert.equal(run(`activity.params.smart_contract_address in ['${OTHER}', '${written}']`, bindings), true);
        assert.equal(run(`['${OTHER}', '${written}'].contains(activity.params.smart_contract_address)`, bindings), true);
        assert.equal(run(`activity.params.more.owners.contains('${written}')`, bindings), true);
        assert.equal(run(`activity.params.more.owners.any(a, a == '${written}')`, bindings), true);
        assert.equal(run(`activity.params.smart_contract_address == '${OTHER}'`, bindings), false, 'another address is another');
        assert.equal(run(`activity.params.smart_contract_address in ['${OTHER}']`, bindings), false);
      }
    }
    assert.equal(run(`'${CHECKSUMMED}' == '${UPPER}'`), true, 'two literals');
  });

  test('nothing else loses its case: Solana program ids (base58), other hex, other text', () => {
    const solana = contract(SOLANA, 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA');
    assert.equal((solana as any).activity.params.smart_contract_address, SOLANA);
    assert.equal(run(`activity.params.smart_contract_address == '${SOLANA}'`, solana), true);
    assert.equal(run(`activity.params.smart_contract_address == '${SOLANA.toLowerCase()}'`, solana), false);
    assert.equal(run(`activity.params.smart_contract_address in ['${SOLANA.toUpperCase()}']`, solana), false);
    for (const [a, b] of [
      ['Alpha', 'alpha'],
      [`0x${'A'.repeat(39)}`, `0x${'a'.repeat(39)}`], // 39 digits: not an address
      [`0x${'A'.repeat(41)}`, `0x${'a'.repeat(41)}`],
      [`0X${'A'.repeat(40)}`, `0x${'a'.repeat(40)}`], // 0X is not the form
      [`${'A'.repeat(40)}`, `${'a'.repeat(40)}`],
    ]) {
      assert.equal(run(`'${a}' == '${b}'`), false, `${a} == ${b}`);
      assert.equal(run(`'${a}' in ['${b}']`), false);
      const params = paramsForPolicy({ value: a });
      assert.equal(params.value, a, 'read as written');
    }
    assert.equal(run(`credentials.any(c, c.public_key == '${KEY.public_key.toUpperCase()}')`, CONSENSUS), false, 'a public key in hex keeps its case');
  });
});

describe('integers are exact from -2^255 to 2^256 - 1', () => {
  const P53 = 2n ** 53n;
  const MAX = 2n ** 256n - 1n;
  const MIN = -(2n ** 255n);

  test('2^53 and 2^53 + 1 are two ints, as literals and against each other', () => {
    assert.equal(run(`${P53 + 1n} > ${P53}`), true, 'as doubles both would be 2^53');
    assert.equal(run(`${P53 + 1n} == ${P53}`), false);
    assert.equal(run(`${P53 + 1n} != ${P53}`), true);
    assert.equal(run(`${P53} < ${P53 + 1n}`), true);
    assert.equal(run(`${P53 - 1n} < ${P53}`), true, 'the greatest safe integer (a number) against 2^53 (a bigint)');
    assert.equal(run(`${P53 - 1n} == 9007199254740991`), true);
    assert.equal(run(`-${P53 + 1n} < -${P53}`), true);
    assert.equal(run(`${P53 + 1n} in [${P53}, ${P53 + 2n}]`), false);
    assert.equal(run(`${P53 + 1n} in [${P53}, ${P53 + 1n}]`), true);
  });

  test('2^256 - 1 and -2^255 are read exactly; one past them is refused at the literal', () => {
    assert.equal(run(`${MAX} > ${MAX - 1n}`), true);
    assert.equal(run(`${MAX} == ${MAX - 1n}`), false);
    assert.equal(run(`${MAX} == ${MAX}`), true);
    assert.equal(run(`${MIN} < ${MIN + 1n}`), true);
    assert.equal(run(`${MIN} < 0 && 0 < ${MAX}`), true);
    assert.equal(run(`[${MIN}, 0, ${MAX}][2] == ${MAX}`), true);
    assert.equal(run(`0000000000000000000000000000000000000001 == 1`), true, 'leading zeros: the same int');
    assert.equal(compileError(`activity.params.x < ${MAX + 1n}`), 'at 21: integer 115792089237316195423570… is out of range (-2^255 to 2^256 - 1)');
    assert.equal(compileError(`activity.params.x > ${MIN - 1n}`), 'at 21: integer -57896044618658097711785… is out of range (-2^255 to 2^256 - 1)');
    assert.equal(compileError(`1 < 1${'0'.repeat(100)}`), 'at 5: integer 100000000000000000000000… is out of range (-2^255 to 2^256 - 1)');
  });

  test('a bound bigint against small and huge literals, and a bound number against a huge literal; in, contains, all, any, filter', () => {
    const wei = 10n ** 18n + 1n; // 1 ether and 1 wei
    const bindings = activity({ value: wei, small: 5, max: MAX, negative: MIN, values: [1, P53 + 1n, MAX] });
    assert.equal(run('activity.params.value > 1', bindings), true);
    assert.equal(run('activity.params.value > 1000000000000000000', bindings), true, 'one wei more than 1 ether');
    assert.equal(run('activity.params.value <= 1000000000000000000', bindings), false);
    assert.equal(run('activity.params.value == 1000000000000000001', bindings), true);
    assert.equal(run('activity.params.value != 1000000000000000000', bindings), true);
    assert.equal(run(`activity.params.max == ${MAX}`, bindings), true);
    assert.equal(run(`activity.params.max >= ${MAX - 1n} && activity.params.max < ${MAX}`, bindings), false);
    assert.equal(run(`activity.params.negative == ${MIN}`, bindings), true);
    assert.equal(run(`activity.params.small < ${MAX} && activity.params.small > ${MIN}`, bindings), true);
    assert.equal(run(`${P53 + 1n} in activity.params.values && activity.params.values.contains(${MAX})`, bindings), true);
    assert.equal(run(`${P53} in activity.params.values`, bindings), false);
    assert.equal(run(`activity.params.values.filter(v, v > ${P53}).count() == 2`, bindings), true);
    assert.equal(run(`activity.params.values.all(v, v >= 1 && v <= ${MAX})`, bindings), true);
    assert.equal(run(`activity.params.values.any(v, v > ${MAX - 1n})`, bindings), true);
  });

  test('a bigint that is a small int equals the same int held as a number, and indexes and slices', () => {
    const bindings = activity({ one: 1n, two: 2n, list: [10, 20, 30] });
    assert.equal(run('activity.params.one == 1', bindings), true);
    assert.equal(run('1 == activity.params.one', bindings), true);
    assert.equal(run('activity.params.one in [3, 2, 1]', bindings), true);
    assert.equal(run('[3, 2, 1].contains(activity.params.two)', bindings), true);
    assert.equal(run('activity.params.list[activity.params.two] == 30', bindings), true);
    assert.equal(run('activity.params.list[activity.params.one..activity.params.two].contains(20)', bindings), true);
    assert.equal(run('activity.params.list[activity.params.one..activity.params.two].count() == 1', bindings), true);
    assert.equal(run('activity.params.list.count() > activity.params.two', bindings), true);
    assert.equal(evaluationError(`activity.params.list[${P53 + 1n}] == 1`, bindings), `at 22: index ${P53 + 1n} out of range for a list of length 3`);
    assert.equal(evaluationError(`activity.params.list[0..${MAX}].count() == 3`, bindings), `at 21: slice [0..${MAX}] out of range for a list of length 3`);
  });

  test('fail closed: an int against a string, and a number that is no exact int, are evaluation errors', () => {
    const bindings = activity({ amount: '1000000000000000000', big: 2 ** 53, fraction: 1.5, list: [1, 2 ** 60] });
    assert.equal(evaluationError(`activity.params.amount == 1000000000000000000`, bindings), 'at 24: cannot compare string with int');
    assert.equal(evaluationError(`activity.params.amount > ${MAX - 1n}`, bindings), 'at 24: expected int > int, found string > int');
    assert.equal(evaluationError(`activity.params.big == ${P53}`, bindings), 'at 21: cannot compare number (not an exact int) with int');
    assert.equal(evaluationError(`activity.params.big > ${P53 - 1n}`, bindings), 'at 21: expected int > int, found number (not an exact int) > int');
    assert.equal(evaluationError('activity.params.fraction < 2', bindings), 'at 26: expected int < int, found number (not an exact int) < int');
    assert.equal(evaluationError(`${2n ** 60n} in activity.params.list`, bindings), 'at 21: cannot compare int with number (not an exact int) (an item of the list)');
    assert.equal(evaluationError('activity.params.amount in [1000000000000000000, 1]', bindings), 'at 24: cannot compare string with int (an item of the list)');
    assert.equal(evaluationError(`[${MAX}].contains(activity.params.amount)`, bindings), 'at 82: cannot compare string with int (an item of the list)');
    assert.equal(evaluationError(`${MAX} in [activity.params.amount]`, bindings), 'at 80: cannot compare int with string (an item of the list)');
    assert.equal(evaluationError('activity.params.big in [1]', bindings), 'at 1: expected bool, int or string, found number (not an exact int)');
    assert.equal(run('1 in activity.params.list', bindings), true, 'found before the inexact item');
  });

  test('activity.params keeps a decimal string a string, and a JSON number beyond 2^53 - 1 no int', () => {
    const converted = paramsForPolicy({ amount: '115792089237316195423570985008687907853269984665640564039457584007913129639935', big: JSON.parse('9007199254740993') });
    assert.equal(typeof converted.amount, 'string');
    assert.equal(evaluationError(`activity.params.amount == ${MAX}`, activity(converted)), 'at 24: cannot compare string with int');
    assert.equal(evaluationError(`activity.params.big == ${P53 + 1n}`, activity(converted)), 'at 21: cannot compare number (not an exact int) with int');
    assert.equal(evaluationError(`activity.params.big != ${P53}`, activity(converted)), 'at 21: cannot compare number (not an exact int) with int', 'it was rounded to 2^53: never answered');
    const bound = paramsForPolicy({ value: MAX, small: 5n, list: [P53 + 1n, 7n] });
    assert.deepEqual([bound.value, bound.small, bound.list], [MAX, 5, [P53 + 1n, 7]], 'a bigint an int: a number when it is a safe integer');
  });
});
