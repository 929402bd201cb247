// View: what policies and approvers read of an activity beyond its parameters, from its handler's
// optional `view` step (ActivityHandler.view): for an activity that signs, the transaction or typed
// data decoded with the organization's smart contract interfaces (`eth.tx`, `solana.tx`,
// `eth.eip_712`), the key it signs with (`wallet`, `wallet_account`, `private_key`), and a summary in
// words for those asked to approve it, kept within MAX_SUMMARY_BYTES (it is stored with the activity,
// and carried by its approval emails and webhook events). The one call of ActivityHandler.view. It is asked only when
// the decision reads policies or the activity may wait for approvals: with no policy and a root
// quorum of one, an activity is allowed for its root user or refused for anyone else on that alone,
// and a signature reads nothing more than its key.
import { SignetError } from '../../errors.ts';
import { boundedSummary } from '../../readable/index.ts';
import type { ActivityHandler, ActivityView, PrepareContext } from '../handler.ts';
import type { Authority } from './decide.ts';
import type { Preparation } from './prepare.ts';

/** Whether a decision by `authority` may read what a view gives: a policy may read it, or the activity may wait (its approvers read the summary). */
export function viewNeeded(handler: Pick<ActivityHandler, 'view' | 'rootQuorumOnly'>, authority: Pick<Authority, 'policies' | 'rootQuorum'>): boolean {
  if (!handler.view || handler.rootQuorumOnly) return false;
  return authority.policies.length > 0 || authority.rootQuorum.threshold > 1;
}

/**
 * The activity's view, when `authority`'s decision may read it (viewNeeded) and the handler prepared
 * the activity; else undefined. A view the handler refuses to give (a client error: what it names is
 * gone) is no view: a condition that reads it fails closed, and execution refuses the activity.
 */
export async function viewOf(
  handler: ActivityHandler,
  context: PrepareContext,
  intent: unknown,
  preparation: Preparation,
  authority: Pick<Authority, 'policies' | 'rootQuorum'>,
): Promise<ActivityView | undefined> {
  if (!viewNeeded(handler, authority) || preparation.kind !== 'prepared') return undefined;
  let view: ActivityView;
  try {
    view = await handler.view!(context, intent, preparation.prepared);
  } catch (error) {
    if (error instanceof SignetError && error.status < 500) return undefined;
    throw error;
  }
  if (!view.summary) return view;
  const summary = boundedSummary(view.summary);
  return { ...(view.signing ? { signing: view.signing } : {}), ...(summary ? { summary } : {}) };
}
