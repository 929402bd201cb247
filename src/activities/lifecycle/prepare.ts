// Prepare: between intake and decide, the handler's optional check of its intent against what the
// intent names in the store (ActivityHandler.prepare: the account a signature is made with, whose
// curve must take the payload's encoding and hash function). A request that could never execute is
// so refused at submission, a 400 or 404 with nothing stored, instead of waiting for approvals and
// failing at the one that allows it. What the handler prepared is handed to its execute: at once for
// an activity allowed now (one read, not two), or prepared again when an approval executes it later.
import { SignetError } from '../../errors.ts';
import type { ActivityHandler, PrepareContext } from '../handler.ts';

/** What a handler prepared (undefined when it has no prepare step), or the client error it refused the intent with. */
export type Preparation = { kind: 'prepared'; prepared: unknown } | { kind: 'refused'; error: SignetError };

/** The one call of ActivityHandler.prepare. */
export async function prepare(handler: ActivityHandler, context: PrepareContext, intent: unknown): Promise<Preparation> {
  if (!handler.prepare) return { kind: 'prepared', prepared: undefined };
  try {
    return { kind: 'prepared', prepared: await handler.prepare(context, intent) };
  } catch (error) {
    if (error instanceof SignetError && error.status < 500) return { kind: 'refused', error };
    throw error;
  }
}
