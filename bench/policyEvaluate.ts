// A micro-benchmark of the policy interpreter (src/policy/evaluate.ts): evaluates typical conditions
// and consensus expressions (strings, small integers, `in` lists, counts) over fixed bindings many
// times and prints the cost of one evaluation of each: the CPU time of the process (less disturbed than
// the wall clock on a busy machine), the best of several rounds. It prints figures only and asserts
// nothing: compare a change's figures with those of the commit before it, run alternately.
//   node --import tsx bench/policyEvaluate.ts [--iterations 50000] [--rounds 15]
import { parseArgs } from 'node:util';
import { compileExpression, evaluate, paramsForPolicy, type Bindings, type ExpressionKind } from '../src/policy/index.ts';

const { values: args } = parseArgs({
  options: { iterations: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '15' } },
});
const ITERATIONS = Number(args.iterations);
const ROUNDS = Number(args.rounds);

const PARAMS = paramsForPolicy({
  smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
  label: 'interface',
  otpLength: 6,
  amounts: [1, 5, 10, 50, 100],
});
const CONDITION: Bindings = {
  activity: { type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE', kind: 'CREATE_SMART_CONTRACT_INTERFACE', resource: 'SMART_CONTRACT_INTERFACE', action: 'CREATE', params: PARAMS },
};
const users = Array.from({ length: 3 }, (_, i) => ({ id: `u${i}`, tags: i === 0 ? ['ops'] : ['t1'], email: `u${i}@example.com`, name: `u${i}` }));
const CONSENSUS: Bindings = {
  approvers: users,
  credentials: users.map((u) => ({ id: `k-${u.id}`, user_id: u.id, type: 'CREDENTIAL_TYPE_API_KEY_P256' as const, public_key: '02ab', credential_id: '' })),
};

const CASES: Array<[string, ExpressionKind]> = [
  ["activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'", 'condition'],
  ["activity.kind in ['OTP_AUTH', 'OTP_LOGIN', 'STAMP_LOGIN']", 'condition'],
  ['activity.params.otp_length >= 6 && activity.params.otp_length < 9', 'condition'],
  ['activity.params.amounts.all(a, a > 0 && a <= 100)', 'condition'],
  ['10 in activity.params.amounts', 'condition'],
  ["activity.params.smart_contract_address == '0xdac17f958d2ee523a2206206994597c13d831ec7'", 'condition'],
  ['approvers.count() >= 2', 'consensus'],
  ["approvers.filter(user, user.tags.contains('t1')).count() >= 2", 'consensus'],
];

console.log(`policy evaluation, CPU time of one, ${ITERATIONS} evaluations per round, best of ${ROUNDS} rounds (node ${process.version})`);
for (const [source, kind] of CASES) {
  const compiled = compileExpression(source, kind);
  if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
  const bindings = kind === 'condition' ? CONDITION : CONSENSUS;
  const first = evaluate(compiled.value, bindings);
  if (!first.ok) throw new Error(`${source}: ${first.error.message}`);
  let best = Infinity;
  let holds = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) {
      const result = evaluate(compiled.value, bindings);
      if (result.ok && result.value) holds++;
    }
    const spent = process.cpuUsage(started);
    best = Math.min(best, (spent.user + spent.system) / 1000);
  }
  if (holds !== (first.value ? ITERATIONS * ROUNDS : 0)) throw new Error(`${source}: the result changed between evaluations`);
  console.log(`${((best * 1e6) / ITERATIONS).toFixed(0).padStart(6)} ns  ${source}`);
}
