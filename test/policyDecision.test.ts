// The authorization decision (src/policy/decide.ts): root quorum first, then DENY, then ALLOW, then
// consensus needed or an implicit deny; expressions that fail never allow; who may vote; and the
// helpers that present an activity to policies (kind, resource and action, snake_case params).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ACTIVITY_RESOURCES,
  activityKind,
  activityResource,
  compileExpression,
  decide,
  mayVote,
  paramsForPolicy,
  type Approver,
  type CompiledExpression,
  type DecisionInput,
  type ExpressionKind,
  type Policy,
} from '../src/policy/index.ts';

function expr(source: string, kind: ExpressionKind): CompiledExpression {
  const result = compileExpression(source, kind);
  assert.ok(result.ok, result.ok ? '' : result.error.message);
  return result.value;
}

function policy(policyId: string, effect: Policy['effect'], condition?: string, consensus?: string): Policy {
  return {
    policyId,
    policyName: `${policyId} name`,
    effect,
    ...(condition === undefined ? {} : { condition: expr(condition, 'condition') }),
    ...(consensus === undefined ? {} : { consensus: expr(consensus, 'consensus') }),
  };
}

function user(id: string, tags: string[] = []): Approver {
  return {
    user: { id, tags, email: `${id}@example.com`, name: id },
    credentials: [{ id: `key-${id}`, user_id: id, type: 'CREDENTIAL_TYPE_API_KEY_P256', public_key: `02${'cd'.repeat(32)}`, credential_id: '' }],
  };
}

const ROOT_A = user('root-a');
const ROOT_B = user('root-b');
const TAGGED_1 = user('tagged-1', ['t1']);
const TAGGED_2 = user('tagged-2', ['t1', 'ops']);
const PLAIN = user('plain', ['t2']);

const CREATE_INTERFACE = {
  type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
  params: paramsForPolicy({ smartContractAddress: '0xabc', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'x' }),
};

function input(overrides: Partial<DecisionInput> & Pick<DecisionInput, 'submitter'>): DecisionInput {
  return {
    rootQuorum: { threshold: 1, userIds: [ROOT_A.user.id] },
    policies: [],
    activity: CREATE_INTERFACE,
    approvers: [overrides.submitter],
    ...overrides,
  };
}

describe('the decision order', () => {
  test('(1) root quorum reached: allowed without consulting policies, even a DENY for everything', () => {
    const decision = decide(input({ submitter: ROOT_A, policies: [policy('deny-all', 'EFFECT_DENY')] }));
    assert.deepEqual(decision, { outcome: 'OUTCOME_ALLOW', by: 'ROOT_QUORUM', evaluations: [] });
  });

  test('(2) a DENY that applies wins over an ALLOW that applies, and is named', () => {
    const decision = decide(
      input({
        submitter: PLAIN,
        policies: [
          policy('allow-interfaces', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'"),
          policy('deny-eth', 'EFFECT_DENY', "activity.params.type == 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM'"),
          policy('deny-otp', 'EFFECT_DENY', "activity.resource == 'OTP'"),
        ],
      }),
    );
    assert.deepEqual(decision, {
      outcome: 'OUTCOME_DENY_EXPLICIT',
      by: 'POLICY',
      policyId: 'deny-eth',
      policyName: 'deny-eth name',
      evaluations: [
        { policyId: 'allow-interfaces', outcome: 'OUTCOME_ALLOW' },
        { policyId: 'deny-eth', outcome: 'OUTCOME_DENY_EXPLICIT' },
      ],
    }, 'deny-otp, whose condition does not hold, is not listed');
  });

  test('(3) an ALLOW that applies, and is named', () => {
    const decision = decide(
      input({
        submitter: PLAIN,
        policies: [
          policy('deny-other-user', 'EFFECT_DENY', "activity.resource == 'SMART_CONTRACT_INTERFACE'", "approvers.any(u, u.id == 'someone-else')"),
          policy('allow-create', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'", "approvers.any(u, u.tags.contains('t2'))"),
        ],
      }),
    );
    assert.deepEqual(decision, {
      outcome: 'OUTCOME_ALLOW',
      by: 'POLICY',
      policyId: 'allow-create',
      policyName: 'allow-create name',
      evaluations: [
        { policyId: 'deny-other-user', outcome: 'OUTCOME_DENY_IMPLICIT' },
        { policyId: 'allow-create', outcome: 'OUTCOME_ALLOW' },
      ],
    });
  });

  test('(4) nothing applies: an implicit deny', () => {
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-users', 'EFFECT_ALLOW', "activity.resource == 'USER'")] }));
    assert.deepEqual(decision, { outcome: 'OUTCOME_DENY_IMPLICIT', evaluations: [] });
    assert.deepEqual(decide(input({ submitter: PLAIN })), { outcome: 'OUTCOME_DENY_IMPLICIT', evaluations: [] }, 'no policies at all');
  });

  test('a DENY on an Ethereum address denies it in every spelling: lowercase, EIP-55, capitals', () => {
    const checksummed = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const spellings = [checksummed.toLowerCase(), checksummed, `0x${checksummed.slice(2).toUpperCase()}`];
    const interfaceOf = (address: string) => ({
      type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
      params: paramsForPolicy({ smartContractAddress: address, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'x' }),
    });
    const policiesOn = (written: string) => [
      policy('allow-interfaces', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'"),
      policy('deny-usdc', 'EFFECT_DENY', `activity.params.smart_contract_address == '${written}'`),
    ];
    for (const written of spellings) {
      for (const submitted of spellings) {
        const decision = decide(input({ submitter: PLAIN, policies: policiesOn(written), activity: interfaceOf(submitted) }));
        assert.equal(decision.outcome, 'OUTCOME_DENY_EXPLICIT', `policy on ${written}, submitted ${submitted}`);
        assert.equal(decision.policyId, 'deny-usdc');
      }
    }
    const other = decide(input({ submitter: PLAIN, policies: policiesOn(checksummed), activity: interfaceOf('0xdAC17F958D2ee523a2206206994597C13D831ec7') }));
    assert.equal(other.outcome, 'OUTCOME_ALLOW', 'another address is not denied');
  });

  test('a DENY over a uint256 bound decides to the unit: one over it denies, the bound and below do not; a decimal string fails closed', () => {
    const MAX = 2n ** 256n - 1n;
    const bound = 2n ** 255n + 2n ** 53n; // no double holds it, nor its neighbours
    const withValue = (value: bigint | number | string) => ({ ...CREATE_INTERFACE, params: paramsForPolicy({ ...CREATE_INTERFACE.params, value }) });
    const policies = [
      policy('allow-interfaces', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'"),
      policy('deny-over-bound', 'EFFECT_DENY', `activity.params.value > ${bound}`),
      policy('deny-listed', 'EFFECT_DENY', `activity.params.value in [${MAX}, -${2n ** 255n}, 9007199254740993]`),
    ];
    const outcome = (value: bigint | number | string) => decide(input({ submitter: PLAIN, policies, activity: withValue(value) }));
    /** The outcome, and the policy named by an explicit one. */
    const decided = (value: bigint | number | string) => {
      const decision = outcome(value);
      return decision.outcome === 'OUTCOME_DENY_EXPLICIT' ? `denied by ${decision.policyId}` : decision.outcome;
    };
    assert.equal(decided(bound + 1n), 'denied by deny-over-bound');
    assert.equal(decided(bound), 'OUTCOME_ALLOW', 'the bound itself');
    assert.equal(decided(bound - 1n), 'OUTCOME_ALLOW');
    assert.equal(decided(1), 'OUTCOME_ALLOW', 'a small number against the huge bound');
    assert.equal(decided(-(2n ** 255n)), 'denied by deny-listed');
    assert.equal(decided(2n ** 53n + 1n), 'denied by deny-listed', '2^53 + 1, not 2^53');
    assert.equal(decided(2n ** 53n), 'OUTCOME_ALLOW', '2^53 is not in the list');
    assert.equal(decided(String(bound + 1n)), 'denied by deny-over-bound', 'a decimal string is no int: the DENY fails, and so denies');
    const asText = outcome(String(bound + 1n));
    assert.match(JSON.stringify(asText.evaluations), /expected int > int, found string > int/);
  });

  test('absent condition and consensus both hold: such an ALLOW allows everything to everyone', () => {
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-all', 'EFFECT_ALLOW')] }));
    assert.equal(decision.outcome, 'OUTCOME_ALLOW');
  });

  test('ecosystem examples: a user allowed to act alone, and by resource and action', () => {
    const policies = [
      policy('only-plain', 'EFFECT_ALLOW', "activity.resource == 'USER' && activity.action == 'CREATE'", "approvers.any(user, user.id == 'plain')"),
    ];
    const createUsers = { type: 'ACTIVITY_TYPE_CREATE_USERS_V4', params: paramsForPolicy({ users: [{ userName: 'n' }] }) };
    assert.equal(decide(input({ submitter: PLAIN, policies, activity: createUsers })).outcome, 'OUTCOME_ALLOW');
    assert.equal(decide(input({ submitter: TAGGED_1, policies, activity: createUsers })).outcome, 'OUTCOME_DENY_IMPLICIT');
    assert.equal(decide(input({ submitter: PLAIN, policies })).outcome, 'OUTCOME_DENY_IMPLICIT', 'another resource');
  });
});

describe('expressions that fail never allow', () => {
  test('an ALLOW whose condition fails does not apply: OUTCOME_ERROR, and an implicit deny', () => {
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-bad', 'EFFECT_ALLOW', 'activity.params.missing == 1')] }));
    assert.deepEqual(decision, {
      outcome: 'OUTCOME_DENY_IMPLICIT',
      evaluations: [{ policyId: 'allow-bad', outcome: 'OUTCOME_ERROR', error: "condition at 17: no field 'missing'", position: 16 }],
    });
  });

  test('an ALLOW whose consensus fails does not apply', () => {
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-second', 'EFFECT_ALLOW', undefined, "approvers[1].id == 'x'")] }));
    assert.deepEqual(decision, {
      outcome: 'OUTCOME_DENY_IMPLICIT',
      evaluations: [{ policyId: 'allow-second', outcome: 'OUTCOME_ERROR', error: 'consensus at 11: index 1 out of range for a list of length 1', position: 10 }],
    });
  });

  test('a DENY whose condition fails denies (fail closed), even when an ALLOW applies', () => {
    const decision = decide(
      input({
        submitter: PLAIN,
        policies: [policy('allow-all', 'EFFECT_ALLOW'), policy('deny-bad', 'EFFECT_DENY', "activity.params.label == 1")],
      }),
    );
    assert.deepEqual(decision, {
      outcome: 'OUTCOME_DENY_EXPLICIT',
      by: 'POLICY',
      policyId: 'deny-bad',
      policyName: 'deny-bad name',
      evaluations: [
        { policyId: 'allow-all', outcome: 'OUTCOME_ALLOW' },
        { policyId: 'deny-bad', outcome: 'OUTCOME_ERROR', error: 'condition at 23: cannot compare string with int', position: 22 },
      ],
    });
  });

  test("an error's position is the 0-based offset, in its expression, of the part that failed", () => {
    const condition = "activity.type != '' && activity.params.nothing == 1";
    const consensus = "approvers.count() >= 1 && approvers[3].id == 'x'";
    const decision = decide(
      input({ submitter: PLAIN, policies: [policy('bad-condition', 'EFFECT_ALLOW', condition), policy('bad-consensus', 'EFFECT_ALLOW', undefined, consensus)] }),
    );
    const [first, second] = decision.evaluations;
    assert.equal(first!.position, condition.indexOf('nothing'));
    assert.equal(second!.position, consensus.indexOf('3'));
    assert.match(first!.error!, new RegExp(`^condition at ${condition.indexOf('nothing') + 1}: no field 'nothing'$`));
    assert.match(second!.error!, new RegExp(`^consensus at ${consensus.indexOf('3') + 1}: index 3 out of range`));
  });

  test('a DENY whose consensus fails denies', () => {
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-all', 'EFFECT_ALLOW'), policy('deny-bad', 'EFFECT_DENY', undefined, "approvers[5].id == 'x'")] }));
    assert.equal(decision.outcome, 'OUTCOME_DENY_EXPLICIT');
    assert.equal(decision.outcome === 'OUTCOME_DENY_EXPLICIT' && decision.policyId, 'deny-bad');
  });

  test('a DENY guarded by the activity type does not fail on other types (&& stops at false)', () => {
    const policies = [
      policy('allow-all', 'EFFECT_ALLOW'),
      policy('deny-short-otp', 'EFFECT_DENY', "activity.type == 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3' && activity.params.otp_length < 6"),
    ];
    assert.equal(decide(input({ submitter: PLAIN, policies })).outcome, 'OUTCOME_ALLOW');
    const shortOtp = { type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', params: paramsForPolicy({ otpLength: 4, contact: 'a@example.com' }) };
    assert.equal(decide(input({ submitter: PLAIN, policies, activity: shortOtp })).outcome, 'OUTCOME_DENY_EXPLICIT');
  });

  test('an effect other than EFFECT_ALLOW (a corrupt row, say) is taken as a DENY', () => {
    const odd = { ...policy('odd', 'EFFECT_ALLOW'), effect: 'EFFECT_MAYBE' as Policy['effect'] };
    const decision = decide(input({ submitter: PLAIN, policies: [policy('allow-all', 'EFFECT_ALLOW'), odd] }));
    assert.equal(decision.outcome, 'OUTCOME_DENY_EXPLICIT');
    assert.equal(decision.outcome === 'OUTCOME_DENY_EXPLICIT' && decision.policyId, 'odd');
  });

  test('a budget-exhausting ALLOW does not apply', () => {
    const many = Array.from({ length: 500 }, (_, i) => user(`u${i}`, ['t1']));
    const decision = decide(
      input({
        submitter: many[0]!,
        approvers: many,
        policies: [policy('allow-costly', 'EFFECT_ALLOW', undefined, 'approvers.all(a, approvers.all(b, a.id != b.id || a.id == b.id))')],
      }),
    );
    assert.equal(decision.outcome, 'OUTCOME_DENY_IMPLICIT');
    assert.match(decision.evaluations[0]!.error!, /exceeded its budget/);
  });

  test('an activity type the table does not list has no resource: reading it fails', () => {
    const decision = decide(
      input({ submitter: PLAIN, activity: { type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG', params: {} }, policies: [policy('allow-sign', 'EFFECT_ALLOW', "activity.resource == 'PRIVATE_KEY'")] }),
    );
    assert.equal(decision.outcome, 'OUTCOME_DENY_IMPLICIT');
    assert.deepEqual(decision.evaluations, [{ policyId: 'allow-sign', outcome: 'OUTCOME_ERROR', error: "condition at 10: no field 'resource'", position: 9 }]);
  });
});

describe('consensus needed', () => {
  const twoOfTagged = [
    policy('two-tagged', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'", "approvers.filter(u, u.tags.contains('t1')).count() >= 2"),
  ];

  test('2-of-3 by tag: a tagged submitter needs consensus; a second tagged approver allows; an untagged submitter is denied', () => {
    const first = decide(input({ submitter: TAGGED_1, policies: twoOfTagged }));
    assert.deepEqual(first, { outcome: 'OUTCOME_REQUIRES_CONSENSUS', evaluations: [{ policyId: 'two-tagged', outcome: 'OUTCOME_REQUIRES_CONSENSUS' }] });
    const second = decide(input({ submitter: TAGGED_1, approvers: [TAGGED_1, TAGGED_2], policies: twoOfTagged }));
    assert.equal(second.outcome, 'OUTCOME_ALLOW');
    const untaggedVote = decide(input({ submitter: TAGGED_1, approvers: [TAGGED_1, PLAIN], policies: twoOfTagged }));
    assert.equal(untaggedVote.outcome, 'OUTCOME_REQUIRES_CONSENSUS', 'an untagged approval does not count');
    const untagged = decide(input({ submitter: PLAIN, policies: twoOfTagged }));
    assert.deepEqual(untagged, { outcome: 'OUTCOME_DENY_IMPLICIT', evaluations: [{ policyId: 'two-tagged', outcome: 'OUTCOME_DENY_IMPLICIT' }] });
  });

  test('chained filters select by every predicate', () => {
    const policies = [policy('ops', 'EFFECT_ALLOW', undefined, "approvers.filter(u, u.tags.contains('t1')).filter(u, u.tags.contains('ops')).count() >= 2")];
    assert.equal(decide(input({ submitter: TAGGED_2, policies })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
    assert.equal(decide(input({ submitter: TAGGED_1, policies })).outcome, 'OUTCOME_DENY_IMPLICIT', 't1 without ops is not selected');
  });

  test('a consensus counting every approver, and one naming a user', () => {
    const everyone = [policy('any-two', 'EFFECT_ALLOW', undefined, 'approvers.count() >= 2')];
    assert.equal(decide(input({ submitter: PLAIN, policies: everyone })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
    assert.equal(decide(input({ submitter: PLAIN, approvers: [PLAIN, TAGGED_1], policies: everyone })).outcome, 'OUTCOME_ALLOW');
    const named = [policy('plain-and-another', 'EFFECT_ALLOW', undefined, "approvers.any(u, u.id == 'plain') && approvers.count() >= 2")];
    assert.equal(decide(input({ submitter: PLAIN, policies: named })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
    const other = [policy('tagged-1-only', 'EFFECT_ALLOW', undefined, "approvers.any(u, u.id == 'tagged-1')")];
    assert.equal(decide(input({ submitter: PLAIN, policies: other })).outcome, 'OUTCOME_DENY_IMPLICIT', 'the submitter is not the one named');
  });

  test('credentials select too: a passkey approval needed, the submitter stamped with an API key', () => {
    const passkey = [policy('passkey', 'EFFECT_ALLOW', undefined, "credentials.any(c, c.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')")];
    assert.equal(decide(input({ submitter: PLAIN, policies: passkey })).outcome, 'OUTCOME_DENY_IMPLICIT');
    const withPasskey: Approver = {
      user: PLAIN.user,
      credentials: [{ id: 'a-1', user_id: 'plain', type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR', public_key: '04', credential_id: 'cred' }],
    };
    assert.equal(decide(input({ submitter: withPasskey, policies: passkey })).outcome, 'OUTCOME_ALLOW');
  });

  test('only when the condition holds, and never over an applicable DENY', () => {
    const elsewhere = [policy('two-tagged-users', 'EFFECT_ALLOW', "activity.resource == 'USER'", "approvers.filter(u, u.tags.contains('t1')).count() >= 2")];
    assert.equal(decide(input({ submitter: TAGGED_1, policies: elsewhere })).outcome, 'OUTCOME_DENY_IMPLICIT');
    const denied = decide(input({ submitter: TAGGED_1, policies: [...twoOfTagged, policy('deny-eth', 'EFFECT_DENY', "activity.params.type == 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM'")] }));
    assert.equal(denied.outcome, 'OUTCOME_DENY_EXPLICIT');
    const rootDenied = decide(input({ submitter: ROOT_A, rootQuorum: { threshold: 2, userIds: ['root-a', 'root-b'] }, policies: [policy('deny-all', 'EFFECT_DENY')] }));
    assert.equal(rootDenied.outcome, 'OUTCOME_DENY_EXPLICIT', 'a root submitter below threshold is still subject to DENY');
  });

  test('a predicate reading an outer variable cannot be decided for the submitter alone: not counted', () => {
    const policies = [policy('pairs', 'EFFECT_ALLOW', undefined, "approvers.any(a, approvers.any(b, a.id != b.id && b.tags.contains('t1')))")];
    assert.equal(decide(input({ submitter: TAGGED_1, policies })).outcome, 'OUTCOME_DENY_IMPLICIT');
  });

  test('all(), a filter that selects no one and a shadowed keyword do not count the submitter; count() does', () => {
    const policies = [
      policy('all-tagged', 'EFFECT_ALLOW', undefined, "approvers.all(u, u.tags.contains('t1')) && approvers.count() < 0"),
    ];
    // approvers.count() counts everyone, so the submitter is counted here even though more approvals cannot help.
    assert.equal(decide(input({ submitter: TAGGED_1, policies })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
    const shadowed = [
      policy('shadow', 'EFFECT_ALLOW', undefined, 'approvers.filter(x, false).count() > 0 && [[1]].any(approvers, approvers.any(u, u == 2))'),
    ];
    assert.equal(decide(input({ submitter: TAGGED_1, policies: shadowed })).outcome, 'OUTCOME_DENY_IMPLICIT');
    const onlyAll = [policy('only-all', 'EFFECT_ALLOW', undefined, "approvers.all(u, u.tags.contains('zzz'))")];
    assert.equal(decide(input({ submitter: TAGGED_1, policies: onlyAll })).outcome, 'OUTCOME_DENY_IMPLICIT');
  });
});

describe('root quorum', () => {
  const quorumOfTwo = { threshold: 2, userIds: ['root-a', 'root-b'] };

  test('a quorum of 2 needs both roots: one root submitting needs consensus, both allow', () => {
    const one = decide(input({ submitter: ROOT_A, rootQuorum: quorumOfTwo }));
    assert.deepEqual(one, { outcome: 'OUTCOME_REQUIRES_CONSENSUS', evaluations: [] });
    const both = decide(input({ submitter: ROOT_A, rootQuorum: quorumOfTwo, approvers: [ROOT_A, ROOT_B] }));
    assert.deepEqual(both, { outcome: 'OUTCOME_ALLOW', by: 'ROOT_QUORUM', evaluations: [] });
  });

  test('the same root approving twice counts once; a non-root does not count', () => {
    assert.equal(decide(input({ submitter: ROOT_A, rootQuorum: quorumOfTwo, approvers: [ROOT_A, ROOT_A] })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
    assert.equal(decide(input({ submitter: ROOT_A, rootQuorum: quorumOfTwo, approvers: [ROOT_A, PLAIN] })).outcome, 'OUTCOME_REQUIRES_CONSENSUS');
  });

  test('a non-root submitter with no policy is denied; a threshold below 1 never passes', () => {
    assert.equal(decide(input({ submitter: PLAIN, rootQuorum: quorumOfTwo })).outcome, 'OUTCOME_DENY_IMPLICIT');
    for (const threshold of [0, -1, 1.5, Number.NaN]) {
      const decision = decide(input({ submitter: ROOT_A, rootQuorum: { threshold, userIds: ['root-a'] } }));
      assert.equal(decision.outcome, 'OUTCOME_DENY_IMPLICIT', `threshold ${threshold}`);
    }
  });

  test('while a root waits for the quorum, an ALLOW policy that applies still allows', () => {
    const decision = decide(input({ submitter: ROOT_A, rootQuorum: quorumOfTwo, policies: [policy('allow-all', 'EFFECT_ALLOW')] }));
    assert.equal(decision.outcome, 'OUTCOME_ALLOW');
    assert.equal(decision.outcome === 'OUTCOME_ALLOW' && decision.by, 'POLICY');
  });
});

describe('mayVote', () => {
  const context = {
    rootQuorum: { threshold: 2, userIds: ['root-a', 'root-b'] },
    policies: [
      policy('two-tagged', 'EFFECT_ALLOW', "activity.resource == 'SMART_CONTRACT_INTERFACE'", "approvers.filter(u, u.tags.contains('t1')).count() >= 2"),
      policy('tagged-users', 'EFFECT_ALLOW', "activity.resource == 'USER'", "approvers.any(u, u.tags.contains('t2'))"),
      policy('deny-t2', 'EFFECT_DENY', undefined, "approvers.any(u, u.tags.contains('t2'))"),
    ],
    activity: CREATE_INTERFACE,
    approvers: [TAGGED_1],
  };

  test('root-quorum users always; users the consensus of an ALLOW whose condition holds selects', () => {
    assert.equal(mayVote(ROOT_B, context), true);
    assert.equal(mayVote(TAGGED_2, context), true);
    assert.equal(mayVote(PLAIN, context), false, 'tagged t2: selected only by a policy whose condition does not hold, and by a DENY');
  });

  test('no policy with a consensus: only roots', () => {
    const open = { ...context, policies: [policy('allow-all', 'EFFECT_ALLOW')] };
    assert.equal(mayVote(PLAIN, open), false);
    assert.equal(mayVote(ROOT_A, open), true);
  });

  test('a condition that fails selects no one', () => {
    const failing = { ...context, policies: [policy('bad', 'EFFECT_ALLOW', 'activity.params.missing == 1', 'approvers.count() >= 2')] };
    assert.equal(mayVote(PLAIN, failing), false);
    const fine = { ...context, policies: [policy('ok', 'EFFECT_ALLOW', 'activity.params.label == \'x\'', 'approvers.count() >= 2')] };
    assert.equal(mayVote(PLAIN, fine), true);
  });
});

describe('how an activity looks to policies', () => {
  test('activityKind drops the prefix and the version suffix', () => {
    assert.equal(activityKind('ACTIVITY_TYPE_INIT_OTP_AUTH_V3'), 'INIT_OTP_AUTH');
    assert.equal(activityKind('ACTIVITY_TYPE_CREATE_USERS_V4'), 'CREATE_USERS');
    assert.equal(activityKind('ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE'), 'CREATE_SMART_CONTRACT_INTERFACE');
    assert.equal(activityKind('ACTIVITY_TYPE_VERIFY_OTP_V2'), 'VERIFY_OTP');
    assert.equal(activityKind('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7'), 'CREATE_SUB_ORGANIZATION');
  });

  test('resources and actions of Signet activity kinds', () => {
    const expected: [string, string, string][] = [
      ['ACTIVITY_TYPE_INIT_OTP_AUTH_V3', 'AUTH', 'CREATE'],
      ['ACTIVITY_TYPE_OTP_LOGIN_V2', 'AUTH', 'CREATE'],
      ['ACTIVITY_TYPE_STAMP_LOGIN', 'AUTH', 'CREATE'],
      ['ACTIVITY_TYPE_INIT_OTP_V3', 'OTP', 'CREATE'],
      ['ACTIVITY_TYPE_VERIFY_OTP_V2', 'OTP', 'VERIFY'],
      ['ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', 'SMART_CONTRACT_INTERFACE', 'CREATE'],
      ['ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE', 'SMART_CONTRACT_INTERFACE', 'DELETE'],
      ['ACTIVITY_TYPE_CREATE_USERS_V4', 'USER', 'CREATE'],
      ['ACTIVITY_TYPE_DELETE_USER_TAGS', 'USER', 'DELETE'],
      ['ACTIVITY_TYPE_CREATE_API_KEYS_V2', 'CREDENTIAL', 'CREATE'],
      ['ACTIVITY_TYPE_DELETE_AUTHENTICATORS', 'CREDENTIAL', 'DELETE'],
      ['ACTIVITY_TYPE_UPDATE_POLICY_V2', 'POLICY', 'UPDATE'],
      ['ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', 'ORGANIZATION', 'UPDATE'],
      ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7', 'ORGANIZATION', 'CREATE'],
      ['ACTIVITY_TYPE_APPROVE_ACTIVITY', 'ACTIVITY', 'APPROVE'],
      ['ACTIVITY_TYPE_REJECT_ACTIVITY', 'ACTIVITY', 'REJECT'],
    ];
    for (const [type, resource, action] of expected) assert.deepEqual(activityResource(type), { resource, action }, type);
    assert.equal(activityResource('ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'), undefined);
    assert.equal(activityResource('ACTIVITY_TYPE_CONSTRUCTOR'), undefined, 'no inherited entries');
    assert.equal(activityResource('ACTIVITY_TYPE_toString'), undefined);
    for (const kind of Object.keys(ACTIVITY_RESOURCES)) assert.match(kind, /^[A-Z_]+$/, `${kind} is a kind, not a type`);
  });

  test('paramsForPolicy: snake_case field names at every depth, in objects without a prototype', () => {
    const params = paramsForPolicy({
      otpLength: 6,
      smartContractAddress: '0xabc',
      userIds: ['u1'],
      users: [{ userName: 'n', apiKeys: [{ apiKeyName: 'k', publicKey: '02' }] }],
      abiJSON: 'x',
      alreadySnake_case: true,
      nothing: null,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(params)), {
      otp_length: 6,
      smart_contract_address: '0xabc',
      user_ids: ['u1'],
      users: [{ user_name: 'n', api_keys: [{ api_key_name: 'k', public_key: '02' }] }],
      abi_json: 'x',
      already_snake_case: true,
      nothing: null,
    });
    assert.equal(Object.getPrototypeOf(params), null);
    const hostile = paramsForPolicy(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2}'));
    assert.equal(Object.getPrototypeOf(hostile), null);
    assert.deepEqual(Object.keys(hostile), ['__proto__', 'constructor'], 'kept as plain own fields');
    assert.deepEqual(Object.keys(paramsForPolicy('not an object')), []);
    assert.deepEqual(Object.keys(paramsForPolicy([1, 2])), []);
  });
});

describe('one step budget per decision', () => {
  // 100 × 100 items, a few steps each: tens of thousands of steps, within one expression's budget
  // (100,000), a fraction of the decision's (200,000).
  const LIST = { type: 'ACTIVITY_TYPE_CREATE_USERS_V4', params: paramsForPolicy({ items: Array.from({ length: 100 }, (_, i) => i) }) };
  const EXPENSIVE = 'activity.params.items.all(a, activity.params.items.all(b, b >= 0)) && false';

  test('expensive ALLOW policies spend the shared budget; what is left fails, and a DENY after them denies', () => {
    const policies = [
      ...Array.from({ length: 10 }, (_, i) => policy(`heavy-${i}`, 'EFFECT_ALLOW', EXPENSIVE)),
      policy('cheap-deny', 'EFFECT_DENY', "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'"),
    ];
    const decision = decide(input({ submitter: PLAIN, policies, activity: LIST }));
    // The first expensive ones are evaluated (their condition is false: omitted); the budget then runs out.
    const errors = decision.evaluations.filter((e) => e.outcome === 'OUTCOME_ERROR');
    assert.ok(errors.length >= 4, JSON.stringify(decision.evaluations));
    assert.ok(decision.evaluations.filter((e) => e.outcome !== 'OUTCOME_ERROR').length < 10, 'the heavy ones are not all evaluated');
    assert.match(errors[0]!.error!, /shared budget of 200000 steps/);
    assert.equal(decision.outcome, 'OUTCOME_DENY_EXPLICIT');
    assert.equal('policyId' in decision && decision.policyId, 'cheap-deny');
  });

  test('each decision has a budget of its own', () => {
    const policies = [policy('heavy', 'EFFECT_ALLOW', EXPENSIVE.replace(' && false', ''))];
    for (let i = 0; i < 5; i++) assert.equal(decide(input({ submitter: PLAIN, policies, activity: LIST })).outcome, 'OUTCOME_ALLOW');
  });
});
