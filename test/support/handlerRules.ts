// Runs a handler's execute on plain data, without a store: what it plans (its result and effects)
// is what a test of its rules reads. A handler that reads the store first (an OTP, a user by
// contact) is not for this helper: its context's store refuses every query, naming the handler.
// Nothing here imports src/store/db.ts, not even a type: a test importing it is not a unit test
// (scripts/unit-tests.js).
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { OidcVerifier } from '../../src/auth/oidc/verifyIdToken.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../src/activities/handler.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { loadConfig } from '../../src/config.ts';
import { deploymentSecretKek } from '../../src/keys/custody/deploymentSecretKek.ts';
import type { Effect } from '../../src/store/effects.ts';

export const ORGANIZATION_ID = '7f4e2c1a-0b3d-4e5f-8a9b-1c2d3e4f5a6b';
export const USER_ID = '2b8c4d6e-1f3a-4b5c-9d7e-0a1b2c3d4e5f';
export const NOW = new Date('2026-12-07T12:00:00.000Z');
/** The deployment secret of a rules context; its KEK seals what a handler seals. */
export const RULES_SECRET = Buffer.alloc(32, 7);

const principal: Principal = {
  organizationId: ORGANIZATION_ID,
  userId: USER_ID,
  userName: 'rules',
  userEmail: null,
  userPhoneNumber: null,
  userCreatedAt: NOW,
  userUpdatedAt: NOW,
  scheme: 'SIGNATURE_SCHEME_TK_API_P256',
  publicKey: '02'.padEnd(66, '1'),
  signature: '30',
  credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
  credential: { kind: 'apiKey', apiKeyId: randomUUID(), now: NOW },
};

/** A context for `handler` whose store refuses to be read. */
export function rulesContext(handler: Pick<ActivityHandler, 'path'>, overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  const db = {
    query() {
      throw new Error(`${handler.path} read the store: its rules are not plain data`);
    },
  } as unknown as ExecutionContext['db'];
  return {
    activityId: randomUUID(),
    organizationId: ORGANIZATION_ID,
    principal,
    now: NOW,
    config: loadConfig({}),
    secret: RULES_SECRET,
    db,
    keys: undefined as never,
    kek: deploymentSecretKek(RULES_SECRET),
    // No issuer configured: a rule that verifies an id token is tested through the HTTP stack (test/oauth.test.ts).
    oidc: new OidcVerifier({ issuers: [], clock: () => NOW }),
    ...overrides,
  };
}

/** What `handler` plans for `parameters` (validated by its schema first, and prepared, as the pipeline does). */
export async function planOf<Schema extends z.ZodType>(
  handler: ActivityHandler<Schema>,
  parameters: z.input<Schema>,
  overrides: Partial<ExecutionContext> = {},
): Promise<ActivityPlan> {
  // As the pipeline does: the handler's prepare step (when it has one) first, its outcome handed to execute.
  const context = rulesContext(handler, overrides);
  const intent = handler.parameters.parse(parameters);
  return handler.execute(context, intent, await handler.prepare?.(context, intent));
}

/** The effects of one kind, in order. */
export function effectsOf<Kind extends Effect['kind']>(plan: ActivityPlan, kind: Kind): Array<Extract<Effect, { kind: Kind }>> {
  return plan.effects.filter((effect): effect is Extract<Effect, { kind: Kind }> => effect.kind === kind);
}

/** The checks, as `name(args…) → message` lines, for a test to compare as a whole. */
export function checksOf(plan: ActivityPlan): Array<{ name: string; args: unknown[]; message: string }> {
  return effectsOf(plan, 'check').map((effect) => ({ name: effect.name, args: [...effect.args], message: effect.error.message }));
}

/**
 * A store that answers the signer lookup (store/signers.ts) with `accounts` of `wallet`, found by
 * address (an Ethereum one in any case), each with its sealed key as create_wallet planned it; every
 * read's values kept in `reads`.
 */
export function signerStore(
  wallet: { walletId: string; sealedMnemonic: string },
  accounts: ReadonlyArray<{ walletAccountId: string; curve: string; path: string; address: string; sealedPrivateKey: string }>,
) {
  const reads: unknown[][] = [];
  const db = {
    async query(_text: string, values: unknown[]) {
      reads.push(values);
      const account = accounts.find((a) => values.includes(a.address) || values.includes(a.address.toLowerCase()));
      if (!account) return [];
      return [
        {
          kind: 'wallet_account',
          id: wallet.walletId,
          curve: account.curve,
          path: account.path,
          address: account.address,
          sealed: wallet.sealedMnemonic,
          account_id: account.walletAccountId,
          account_key: account.sealedPrivateKey,
        },
      ];
    },
  } as unknown as ExecutionContext['db'];
  return { db, reads };
}
