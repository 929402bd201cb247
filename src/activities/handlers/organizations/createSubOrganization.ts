// The create_sub_organization activity (ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8, and _V7): a
// sub-organization of the submitting organization, one level deep, with its root users, their API
// keys and passkeys, and its root quorum (every root user, with the threshold given); all written
// with the activity in its one statement. The new organization is what the admin API makes of one
// (its row, its users, its quorum, its authority at version 0) but for its parent. A `wallet` is the
// new organization's first HD wallet, planned as create_wallet plans one (wallets/newWallet.ts): its
// mnemonic sealed for the new organization's id, written by the same statement.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { p256PointHex } from '../../../keys/p256.ts';
import { canonicalEmailAddress, emailAddressProblem, normalizePhoneNumber } from '../../../otp/contact.ts';
import { signedClientMessage, SIGNUP_USAGE_TYPE } from '../../../otp/clientSignature.ts';
import { MAX_VERIFICATION_TOKEN_LENGTH, readVerificationToken, VERIFICATION_TOKEN_KEY } from '../../../otp/verificationToken.ts';
import { check, take, write, type Effect } from '../../../store/effects.ts';
import { redactVerificationToken } from '../users/userChanges.ts';
import { apiKeyParameter, publicKeysTaken } from '../credentials/apiKeyParameters.ts';
import { credentialsTaken, newUserFields, planNewUsers, usersIssues, withCanonicalContacts } from '../users/createUsers.ts';
import { newWalletParameters, planNewWallet } from '../wallets/newWallet.ts';
import { list, name, trueOrFalse } from '../../wire/parameters.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../handler.ts';

export const MAX_ROOT_USERS = 100;
/** API keys per root user: this many that never expire, and as many with an expirationSeconds. */
export const MAX_LONG_LIVED_KEYS = 10;
export const MAX_EXPIRING_KEYS = 10;

const rootUser = z
  .strictObject({
    ...newUserFields,
    apiKeys: list(apiKeyParameter, MAX_LONG_LIVED_KEYS + MAX_EXPIRING_KEYS, 'API keys').superRefine((keys, ctx) => {
      const expiring = keys.filter((k) => k.expirationSeconds !== undefined).length;
      if (keys.length - expiring > MAX_LONG_LIVED_KEYS) {
        ctx.addIssue({ code: 'custom', message: `may hold at most ${MAX_LONG_LIVED_KEYS} API keys without expirationSeconds` });
      }
      if (expiring > MAX_EXPIRING_KEYS) ctx.addIssue({ code: 'custom', message: `may hold at most ${MAX_EXPIRING_KEYS} API keys with expirationSeconds` });
    }),
  })
  .describe('A root user of the new sub-organization: it needs at least one of apiKeys, authenticators, oauthProviders, userEmail or userPhoneNumber')
  .transform(withCanonicalContacts);

/** Flags of features Signet does not have at all: any value is accepted (they hold already) and echoed. */
const moot = (what: string) => trueOrFalse().describe(`Signet has no ${what}: accepted and echoed, with no effect`).optional();

/** Flags Signet cannot honour yet: false (or nothing) is accepted, true refused rather than ignored. */
const notYet = (what: string) =>
  trueOrFalse()
    .refine((v) => !v, `Signet cannot disable ${what} per sub-organization yet; leave it out or send false`)
    .describe(`Only false: Signet cannot disable ${what} per sub-organization yet`)
    .optional();

function parameters() {
  return z
    .strictObject({
      subOrganizationName: name.describe('Name of the sub-organization; not blank'),
      rootUsers: z
        .array(rootUser, { error: 'must be an array of root users' })
        .min(1, 'must list at least one root user')
        .max(MAX_ROOT_USERS, `may hold at most ${MAX_ROOT_USERS} root users`)
        .describe(
          `The root users, 1 to ${MAX_ROOT_USERS}, together the sub-organization's root quorum; contacts and public keys may each appear once. Each has at most ${MAX_LONG_LIVED_KEYS} API keys without expirationSeconds, ${MAX_EXPIRING_KEYS} with, and 10 passkeys`,
        ),
      rootQuorumThreshold: z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(MAX_ROOT_USERS, `must be at most the number of root users`)
        .describe('How many root users must approve an activity decided by the root quorum: from 1 to the number of root users'),
      wallet: newWalletParameters()
        .describe(
          "The sub-organization's first HD wallet, as create_wallet takes one ({walletName, accounts, mnemonicLength?}): its mnemonic kept sealed and never answered, its accounts derived",
        )
        .optional(),
      disableEmailRecovery: moot('email recovery'),
      disableEmailAuth: moot('email auth (only OTP login)'),
      disableSmsAuth: notYet('SMS OTP login'),
      disableOtpEmailAuth: notYet('email OTP login'),
      verificationToken: z
        .string({ error: 'must be a string: the verificationToken that verify_otp returned' })
        .min(1, 'must not be empty; give the verificationToken that verify_otp returned, or leave it out')
        .max(MAX_VERIFICATION_TOKEN_LENGTH, `is longer than ${MAX_VERIFICATION_TOKEN_LENGTH} characters`)
        .describe(
          "Signet's verification token from verify_otp in this (the parent) organization, unexpired and unused: the root user with the contact it names gets that contact verified. A token bound to a key needs clientSignature. The token is used up",
        )
        .optional(),
      clientSignature: z
        .unknown()
        .describe(
          "Required with a verification token bound to a key (verify_otp V2, or V1 with publicKey): {publicKey, scheme: CLIENT_SIGNATURE_SCHEME_API_P256, message, signature}, message the JSON @turnkey/core's getClientSignatureMessageForSignup builds ({signup or signupV2: {email?, phoneNumber?, apiKeys?, authenticators?, oauthProviders?}, tokenId, type: USAGE_TYPE_SIGNUP}) naming the root user with the token's contact as sent, signed by the token's key",
        )
        .optional(),
    })
    .superRefine((p, ctx) => {
      usersIssues(p.rootUsers, ctx, 'rootUsers');
      if (p.rootQuorumThreshold > p.rootUsers.length) {
        ctx.addIssue({
          code: 'custom',
          path: ['rootQuorumThreshold'],
          message: `must be at most the number of root users (${p.rootUsers.length}): a quorum of ${p.rootQuorumThreshold} could never be reached`,
        });
      }
      if (p.clientSignature !== undefined && p.verificationToken === undefined) {
        ctx.addIssue({ code: 'custom', path: ['clientSignature'], message: 'signs for a verificationToken: give one, or leave clientSignature out' });
      }
    });
}

const createSubOrganizationParameters = parameters();
type CreateSubOrganizationIntent = z.output<typeof createSubOrganizationParameters>;

const resultSchema = z.strictObject({
  subOrganizationId: z.uuid().describe('Identifier of the new sub-organization'),
  rootUserIds: z.array(z.uuid()).describe('Identifiers of its root users, in the order given'),
  wallet: z
    .strictObject({
      walletId: z.uuid().describe('Identifier of the new wallet, in the sub-organization'),
      addresses: z.array(z.string()).describe('The address of each account, in the order of `wallet.accounts`'),
    })
    .describe('The wallet `wallet` asked for; absent when none was')
    .optional(),
});
type Result = z.infer<typeof resultSchema>;

const EXAMPLE = {
  subOrganizationName: 'Alice',
  rootUsers: [
    {
      userName: 'Alice',
      userEmail: 'alice@example.com',
      apiKeys: [{ apiKeyName: 'laptop', publicKey: '026cac77062de3c321682a30e33ff9732f50b8c7bab6434b3d05a8567fc081ab7f', curveType: 'API_KEY_CURVE_P256' }],
      authenticators: [],
      oauthProviders: [],
    },
  ],
  rootQuorumThreshold: 1,
};

const DESCRIPTION =
  "Creates a sub-organization of this organization (one level deep: a sub-organization cannot create one) with its root users, their API keys, passkeys and OAuth providers (id tokens of SIGNET_OIDC_ISSUERS, verified: [OAuth](oauth.md)), and its root quorum (all root users, `rootQuorumThreshold` of them), in one statement; as `@turnkey/sdk-server`'s `createSubOrganization` sends it. A `verificationToken` of this organization marks its contact verified on the root user who has it. A `wallet` ({walletName, accounts, mnemonicLength?}, as create_wallet takes it, with its bounds and refusals named under parameters.wallet) is created in the new sub-organization by the same statement: a new BIP-39 mnemonic kept sealed and never answered, and its accounts derived; the result's `wallet` has its id and addresses.";

export const createSubOrganization: ActivityHandler<typeof createSubOrganizationParameters, Result> = {
  path: 'create_sub_organization',
  activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8',
  resource: 'ORGANIZATION',
  action: 'CREATE',
  reasons: ['PUBLIC_KEY_TAKEN', 'OIDC_TOKEN_REFUSED', 'OAUTH_PROVIDER_TAKEN', 'OIDC_ISSUER_UNAVAILABLE'],
  summary:
    '`{subOrganizationName, rootUsers, rootQuorumThreshold, wallet?, verificationToken?}`: a sub-organization of this one with its root users, their keys and passkeys, its root quorum and, with `wallet` ({walletName, accounts, mnemonicLength?}), its first HD wallet; result `createSubOrganizationResultV8 {subOrganizationId, rootUserIds, wallet?: {walletId, addresses}}` ([Sub-organizations](users.md#sub-organizations))',
  description: DESCRIPTION,
  // A verification token is a secret Signet does not keep: such a creation cannot wait for approvals.
  redact: redactVerificationToken,
  intentKey: 'createSubOrganizationIntentV8',
  resultKey: 'createSubOrganizationResultV8',
  parameters: createSubOrganizationParameters,
  resultSchema,
  example: EXAMPLE,
  execute: (context, intent) => plan(context, intent),
};

/** V7: the same parameters (it differs from V8 only in the OAuth providers' oidcClaims, which Signet does not take) and result. */
export const createSubOrganizationV7: ActivityHandler<typeof createSubOrganizationParameters, Result> = {
  ...createSubOrganization,
  activityType: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7',
  description: 'V7: as V8.',
  intentKey: 'createSubOrganizationIntentV7',
  resultKey: 'createSubOrganizationResultV7',
};

const TOKEN_FIELD = 'parameters.verificationToken';

async function plan(context: ExecutionContext, intent: CreateSubOrganizationIntent): Promise<ActivityPlan<Result>> {
  const { organizationId, now } = context;
  const { users, keys, authenticators, oauthProviders, origins } = await planNewUsers(context, intent.rootUsers, 'rootUsers');
  const subOrganizationId = randomUUID();
  const takes: Effect[] = [];

  if (intent.verificationToken !== undefined) {
    const reading = readVerificationToken(intent.verificationToken, await context.keys.verifiers(VERIFICATION_TOKEN_KEY), now);
    if ('problem' in reading) throw invalidField(TOKEN_FIELD, reading.problem);
    const token = reading.claims;
    if (token.organizationId.toLowerCase() !== organizationId.toLowerCase()) {
      throw invalidField(TOKEN_FIELD, `was issued in organization ${token.organizationId}; verify the contact in this organization, the parent`);
    }
    const sms = token.verificationType === 'OTP_TYPE_SMS';
    const contact = sms ? token.contact : canonicalEmailAddress(token.contact);
    const index = users.findIndex((u) => (sms ? u.phoneNumber === contact : u.email === contact));
    if (index < 0) {
      throw invalidField(
        TOKEN_FIELD,
        `names the ${sms ? 'phone number' : 'email address'} ${contact}, which no root user has; give it as a root user's ${sms ? 'userPhoneNumber' : 'userEmail'}, or leave the token out`,
      );
    }
    if (token.publicKey !== undefined) {
      if (intent.clientSignature === undefined) {
        throw invalidField(
          'parameters.clientSignature',
          "is required: the verification token is bound to a key, whose holder must sign the root user it verifies (@turnkey/core's getClientSignatureMessageForSignup)",
        );
      }
      const problem = signupSignatureProblem(intent.clientSignature, { tokenId: token.id, tokenPublicKey: token.publicKey }, intent.rootUsers[index]!);
      if (problem) throw invalidField('parameters.clientSignature', problem);
    } else if (intent.clientSignature !== undefined) {
      throw invalidField('parameters.clientSignature', 'the verification token is bound to no key, so nothing can check this signature; leave it out');
    }
    users[index] = { ...users[index]!, ...(sms ? { phoneNumberVerified: true } : { emailVerified: true }) };
    // Used by the activity's own statement: one token verifies one sub-organization's contact, even at once.
    takes.push(
      take('verificationToken', [{ id: token.id, organizationId, expiresAt: token.expiresAt }, 'signup', context.activityId, now], () =>
        invalidField(TOKEN_FIELD, 'was already used; verify a new code'),
      ),
    );
  }
  if (authenticators.length > 0) {
    takes.push(take('credentialIds', [[...origins.credentialIds.keys()]], (detail) => credentialsTaken(detail, origins)));
  }
  // A root user's key reaches the parent (whoami, stamp_login) and the parent's keys reach the new
  // organization: none may be a key of the parent's tree already (its own, its sub-organizations').
  if (keys.length > 0) {
    takes.push(take('apiKeys', [organizationId, [...origins.publicKeys.keys()]], (detail) => publicKeysTaken(detail, origins.publicKeys, 'parameters.rootUsers')));
  }
  // The new organization has no wallets: its name is free and there is room, without a check.
  const wallet = intent.wallet === undefined ? undefined : await planNewWallet(context.kek, { organizationId: subOrganizationId, now }, intent.wallet, 'parameters.wallet');
  // The new organization has no users yet: contacts need only be distinct in the request (the schema checks).
  return {
    result: {
      subOrganizationId,
      rootUserIds: users.map((u) => u.id),
      ...(wallet ? { wallet: { walletId: wallet.walletId, addresses: wallet.addresses } } : {}),
    },
    effects: [
      check(
        'mayHaveSubOrganizations',
        [organizationId],
        invalidArgument(`organization ${organizationId} is a sub-organization: sub-organizations are one level deep, so create this one in the parent organization, with its credential`),
      ),
      ...takes,
      write('insertSubOrganization', { id: subOrganizationId, name: intent.subOrganizationName, parentId: organizationId, now }),
      write('insertUsers', subOrganizationId, users, now),
      // Of the parent's tree: the new organization is written by this same statement.
      ...(keys.length > 0 ? [write('insertApiKeys', subOrganizationId, keys, now, organizationId)] : []),
      ...(authenticators.length > 0 ? [write('insertAuthenticators', subOrganizationId, authenticators, now)] : []),
      // The new organization has no identity bound yet: those of the request are distinct (planNewUsers).
      ...(oauthProviders.rows.length > 0 ? [write('insertOauthProviders', subOrganizationId, oauthProviders.rows, now)] : []),
      write('replaceRootQuorum', subOrganizationId, { threshold: intent.rootQuorumThreshold, userIds: users.map((u) => u.id) }, now),
      ...(wallet?.writes ?? []),
    ],
  };
}

/** Longest signup message read: it carries the root user's keys and passkey attestations. */
const MAX_SIGNUP_MESSAGE_LENGTH = 64 * 1024;
const USAGE_FIELDS = ['email', 'phoneNumber', 'apiKeys', 'authenticators', 'oauthProviders'];

/** JSON with object keys sorted, to compare what was signed with what was sent whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The first reason the client signature does not sign for this root user (the one with the token's
 * contact), or undefined: the message, signed by the token's key, is {signup or signupV2, tokenId,
 * type: USAGE_TYPE_SIGNUP}; the usage's contacts are the root user's (compared canonically), and its
 * apiKeys, authenticators and oauthProviders the root user's as sent (a list left out is an empty one).
 */
function signupSignatureProblem(
  signature: unknown,
  token: { tokenId: string; tokenPublicKey: string },
  rootUser: CreateSubOrganizationIntent['rootUsers'][number],
): string | undefined {
  const signed = signedClientMessage(signature, token.tokenPublicKey, 'getClientSignatureMessageForSignup(...).message', MAX_SIGNUP_MESSAGE_LENGTH);
  if ('problem' in signed) return signed.problem;
  const { content } = signed;
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return 'clientSignature.message must be a JSON object {signup, tokenId, type}';
  const { signup, signupV2, tokenId, type } = content as Record<string, unknown>;
  if (Object.keys(content).some((key) => !['signup', 'signupV2', 'tokenId', 'type'].includes(key))) return 'clientSignature.message has fields besides signup (or signupV2), tokenId and type';
  if (type !== SIGNUP_USAGE_TYPE) return `clientSignature.message type must be ${SIGNUP_USAGE_TYPE}`;
  if (tokenId !== token.tokenId) return "clientSignature.message tokenId must be the verification token's id";
  const usage = signup ?? signupV2;
  if ((signup === undefined) === (signupV2 === undefined) || usage === null || typeof usage !== 'object' || Array.isArray(usage)) {
    return 'clientSignature.message must hold one object, signup or signupV2: the root user it signs for';
  }
  const fields = usage as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !USAGE_FIELDS.includes(key));
  if (unknown !== undefined) return `clientSignature.message's signup has an unknown field ${JSON.stringify(unknown.slice(0, 40))}`;
  const email = typeof fields.email === 'string' && fields.email !== '' ? canonicalEmailAddress(fields.email) : undefined;
  if (email !== rootUser.userEmail) return "clientSignature.message's signup email must be the root user's userEmail";
  const phone = typeof fields.phoneNumber === 'string' && fields.phoneNumber !== '' ? normalizePhoneNumber(fields.phoneNumber) : undefined;
  if ((phone && 'e164' in phone ? phone.e164 : undefined) !== rootUser.userPhoneNumber) return "clientSignature.message's signup phoneNumber must be the root user's userPhoneNumber";
  for (const list of ['apiKeys', 'authenticators', 'oauthProviders'] as const) {
    if (canonicalJson(fields[list] ?? []) !== canonicalJson(rootUser[list])) return `clientSignature.message's signup ${list} must be the root user's ${list} as sent`;
  }
  return undefined;
}

/** What list_suborgs filters on. */
export const SUB_ORGANIZATION_FILTERS = ['NAME', 'USERNAME', 'EMAIL', 'PHONE_NUMBER', 'CREDENTIAL_ID', 'PUBLIC_KEY', 'OIDC_TOKEN'] as const;
export type SubOrganizationFilterType = (typeof SUB_ORGANIZATION_FILTERS)[number];

/**
 * A filter value of list_suborgs as this activity stores it (an email in lowercase, a phone number in
 * E.164, a public key compressed), so every spelling finds the same; or a 400 naming filterValue.
 */
export function canonicalFilterValue(type: SubOrganizationFilterType, value: string): string {
  const field = 'filterValue';
  switch (type) {
    case 'EMAIL': {
      const problem = emailAddressProblem(value);
      if (problem) throw invalidField(field, `must be an email address with filterType EMAIL: it ${problem}`);
      return canonicalEmailAddress(value);
    }
    case 'PHONE_NUMBER': {
      const phone = normalizePhoneNumber(value);
      if ('problem' in phone) throw invalidField(field, `must be a phone number in international form (E.164) with filterType PHONE_NUMBER: it ${phone.problem}`);
      return phone.e164;
    }
    case 'PUBLIC_KEY': {
      const point = p256PointHex(value);
      if (!point) throw invalidField(field, 'must be a P-256 public key in hex (66 or 130 characters) with filterType PUBLIC_KEY');
      return point.compressed;
    }
    default:
      return value;
  }
}
