// `signet proof verify FILE`: checks a saved activity's App Proofs offline; needs no server and no
// configuration, only the saved activity (a submission's or get_activity's answer).
import fs from 'node:fs';
import { appProofProblems } from '../activities/lifecycle/appProofs.ts';

/** 0 when every proof holds (and is by a trusted key, when `trusted` names any); 1 otherwise, saying why. */
export function verifyProofFile(file: string, trusted: string[]): number {
  let saved: any;
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    process.stderr.write(`signet: ${file} is not a readable JSON file: ${(error as Error).message}\n`);
    return 1;
  }
  const activity = saved?.activity ?? saved;
  const resultEntries = Object.entries(activity?.result ?? {}).filter(([key]) => key !== 'activity');
  if (typeof activity?.id !== 'string' || resultEntries.length !== 1) {
    process.stderr.write(`signet: ${file} does not hold an activity (a submission's or get_activity's answer)\n`);
    return 1;
  }
  const problems = appProofProblems(
    {
      id: activity.id,
      type: activity.type,
      organizationId: activity.organizationId,
      fingerprint: activity.fingerprint,
      timestampMs: activity.timestampMs,
      result: resultEntries[0]![1] as object,
    },
    Array.isArray(activity.appProofs) ? activity.appProofs : [],
    trusted.length > 0 ? trusted.map((k) => k.toLowerCase()) : undefined,
  );
  if (problems.length > 0) {
    process.stdout.write(`INVALID: activity ${activity.id}\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write(`valid: activity ${activity.id} (${activity.type}) is proven by ${activity.appProofs.length} App Proof(s)\n`);
  return 0;
}
