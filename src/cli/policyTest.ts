// `signet policy test FILE`: a file of cases, each a hypothetical activity with the outcome its author
// expects, run against the running server's evaluate_policies (the organization's root quorum and
// policies as they are now; nothing stored). One line per case; exit 0 when every case got its
// expected outcome, 1 naming the first that did not (with what each policy said), 2 for a file that
// cannot be read as cases.
import fs from 'node:fs';
import { z } from 'zod';
import { OUTCOMES, type Outcome } from '../policy/index.ts';
import { fieldViolations } from '../wire/violations.ts';
import { UsageError } from './command.ts';
import { ServerError } from './serverError.ts';
import type { UserClient } from './userClient.ts';

/** Cases a file may hold, and its size: a test file is written by hand. */
const MAX_CASES = 1000;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** An outcome as written in a case: its full name, or without `OUTCOME_` (ALLOW, DENY_EXPLICIT, …). */
const expectedOutcome = z
  .string()
  .transform((value) => (value.startsWith('OUTCOME_') ? value : `OUTCOME_${value}`))
  .pipe(z.enum(OUTCOMES, { message: `must be one of ${OUTCOMES.join(', ')} (OUTCOME_ may be left out)` }));

const caseSchema = z.strictObject({
  name: z.string().min(1, { message: 'must not be empty' }),
  activity: z.strictObject({ type: z.string().min(1), parameters: z.record(z.string(), z.unknown()) }),
  userId: z.string().optional(),
  approverIds: z.array(z.string()).optional(),
  expectedOutcome,
});

const fileSchema = z.strictObject({ cases: z.array(caseSchema).min(1, { message: 'must list at least one case' }).max(MAX_CASES) });

type Case = z.output<typeof caseSchema>;

interface Evaluated {
  outcome: Outcome;
  policyEvaluations: Array<{ policyId: string; policyName: string; outcome: Outcome; error?: string; position?: number }>;
}

/** The cases of `file`, or a UsageError (exit 2) naming what makes it unreadable. */
export function readCases(file: string): Case[] {
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_FILE_BYTES) throw new UsageError(`FILE ${file} is ${size} bytes; a test file is at most ${MAX_FILE_BYTES}`);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read FILE ${file}: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`FILE ${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(document);
  if (!parsed.success) {
    const problems = fieldViolations(parsed.error).map((v) => `${v.field || '(the file)'}: ${v.description}`);
    throw new UsageError(`FILE ${file} is not a policy test ({"cases": [{"name", "activity": {"type", "parameters"}, "userId"?, "approverIds"?, "expectedOutcome"}]}): ${problems.slice(0, 5).join('; ')}`);
  }
  return parsed.data.cases;
}

const short = (outcome: string) => outcome.replace(/^OUTCOME_/, '');

/** Runs the cases of `file`, printing one line each: 0 when all got their expected outcome, else 1. */
export async function policyTest(file: string, client: () => UserClient): Promise<number> {
  const cases = readCases(file);
  const server = client();
  const width = Math.max(...cases.map((c) => c.name.length));
  let firstDifference: { case: Case; got: string; evaluated?: Evaluated } | undefined;
  for (const one of cases) {
    let got: string;
    let evaluated: Evaluated | undefined;
    try {
      evaluated = await server.query<Evaluated>('evaluate_policies', {
        activity: one.activity,
        ...(one.userId !== undefined ? { userId: one.userId } : {}),
        ...(one.approverIds !== undefined ? { approverIds: one.approverIds } : {}),
      });
      got = evaluated.outcome;
    } catch (error) {
      // A case the server refuses (its parameters, a user not found) is a difference, said as the server said it;
      // a credential refused, or a server not reached, ends the run.
      if (!(error instanceof ServerError) || error.status === 401 || error.status === 403 || error.status >= 500) throw error;
      got = `refused (${error.status}: ${error.serverMessage})`;
    }
    const passed = got === one.expectedOutcome;
    process.stdout.write(`${passed ? 'pass' : 'FAIL'}  ${one.name.padEnd(width)}  expected ${short(one.expectedOutcome)}, got ${short(got)}\n`);
    if (!passed && !firstDifference) firstDifference = { case: one, got, ...(evaluated ? { evaluated } : {}) };
  }
  if (!firstDifference) {
    process.stdout.write(`${cases.length} of ${cases.length} cases got their expected outcome\n`);
    return 0;
  }
  const { evaluated } = firstDifference;
  const lines = [`case "${firstDifference.case.name}" expected ${firstDifference.case.expectedOutcome}, got ${firstDifference.got}`];
  if (evaluated) {
    lines.push(evaluated.policyEvaluations.length === 0 ? '  no policy was about it (or the root quorum decided)' : '  policy evaluations:');
    for (const e of evaluated.policyEvaluations) {
      const failed = e.error !== undefined ? `: ${e.error}${e.position !== undefined ? ` (offset ${e.position})` : ''}` : '';
      lines.push(`    ${e.policyName} (${e.policyId}): ${e.outcome}${failed}`);
    }
  }
  process.stderr.write(`signet: ${lines.join('\n')}\n`);
  return 1;
}
