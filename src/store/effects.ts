// An activity's effects as data. A handler says what its activity does as a list of effects: what
// must hold for it to be written (`check`), what it takes from a limited supply that refuses when
// spent (`take`: a rate window, a one-time token), the rows it writes (`write`), the rows it locks
// first (`lock`), the message it queues (`queue`) and whether it changes what decides the
// organization's activities (`changeAuthority`). Each names one of the store's operations below and
// its arguments, so a handler's rules read, and are tested, as plain values; this file compiles them
// into the parts of the activity's one statement (src/store/activities.ts writes them, together).
import type { SignetError } from '../errors.ts';
import { NEW_ACTIVITY } from './activities.ts';
import { apiKeyOfUserNotRevoked, apiKeysFree, insertApiKeysOfActivity, lockUserApiKeys, registerSessionKey, revokeApiKeysOfActivity, revokeOtherEmailAuthKeys, revokeOtherOtpAuthKeys, revokeOtherRecoveryKeys, revokeOtherSessionKeys, sessionKeyAvailable, userApiKeysWithin } from './apiKeys.ts';
import { lockApprovalAddresses, requestApprovalsOfActivity } from './approvalRequests.ts';
import { authenticatorOfUserNotRevoked, credentialIdsFree, insertAuthenticatorsOfActivity, revokeAuthenticatorsOfActivity, userAuthenticatorsWithin } from './authenticators.ts';
import { lockAuthority } from './authorityVersion.ts';
import { chosenEmailTemplate, emailTemplateExists } from './emailTemplates.ts';
import type { Gate } from './gate.ts';
import { deleteOauthProvidersOfActivity, insertOauthProvidersOfActivity, oauthProvidersOfUser, oauthProviderStillBound, oauthSubjectsFree, userOauthProvidersWithin } from './oauthProviders.ts';
import { claimOtp, insertOtp, otpState } from './otps.ts';
import { queueMessage, type OutboxEntry } from './outbox.ts';
import { deletePrivateKeysOfActivity, insertPrivateKeysOfActivity, markPrivateKeyExportedOfActivity, privateKeyExported, privateKeyNameFree, privateKeyOfOrganization, privateKeysRoomFor } from './privateKeys.ts';
import { replacePendingImportOfActivity, usePendingImport } from './pendingImports.ts';
import { signerStillThere } from './signers.ts';
import { deletePoliciesOfActivity, insertPoliciesOfActivity, policiesRoomFor, policyNameFree, policyOfOrganization, updatePolicyOfActivity } from './policies.ts';
import { takeFromRateWindow, type RateLimit } from './rateWindows.ts';
import { replaceRootQuorumOfActivity } from './rootQuorums.ts';
import { senderDomainRegistered } from './senderDomains.ts';
import { insertSmartContractInterface, removeSmartContractInterface } from './smartContractInterfaces.ts';
import type { Sql } from './sql.ts';
import { deleteSubOrganizationOfActivity, insertSubOrganizationOfActivity, isLiveSubOrganization, mayHaveSubOrganizations, organizationKeysExported } from './subOrganizations.ts';
import {
  insertUsersOfActivity,
  lockOrganizationUsers,
  lockUsers,
  markUserContactVerified,
  removeUsersOfActivity,
  updateUserOfActivity,
  userActive,
  userContactsFree,
  userOutsideRootQuorum,
  usersContactsFree,
  usersWithin,
} from './users.ts';
import {
  deleteUserTagsOfActivity,
  insertUserTagMembersOfActivity,
  insertUserTagOfActivity,
  keepUserTagMembersOfActivity,
  lockUserTags,
  userTagMembersAre,
  userTagNameFree,
  userTagOfOrganization,
  userTagsBelow,
} from './userTags.ts';
import {
  deleteWalletsOfActivity,
  insertWalletAccountsOfActivity,
  insertWalletOfActivity,
  markWalletExportedOfActivity,
  renameWalletOfActivity,
  walletAccountFree,
  walletAccountsRoomFor,
  walletExported,
  walletNameFree,
  walletNameFreeBut,
  walletOfOrganization,
  walletsRoomFor,
} from './wallets.ts';
import { useVerificationToken, verificationTokenUsedAt, type TokenUsage } from './verificationTokens.ts';
import { deleteWebhookEndpointOfActivity, insertWebhookEndpointOfActivity, updateWebhookEndpointOfActivity, webhookEndpointOfOrganization, webhookEndpointsRoomFor } from './webhookEndpoints.ts';

/** What must hold, read in the statement after its locks: each a condition of the store's. */
const CHECKS = {
  userActive,
  userOutsideRootQuorum,
  usersWithin,
  apiKeyOfUserNotRevoked,
  userApiKeysWithin,
  sessionKeyAvailable,
  authenticatorOfUserNotRevoked,
  userAuthenticatorsWithin,
  userTagOfOrganization,
  userTagNameFree,
  userTagsBelow,
  userTagMembersAre,
  policyNameFree,
  policyOfOrganization,
  policiesRoomFor,
  mayHaveSubOrganizations,
  isLiveSubOrganization,
  webhookEndpointOfOrganization,
  webhookEndpointsRoomFor,
  senderDomainRegistered,
  emailTemplateExists,
  walletNameFree,
  walletsRoomFor,
  walletAccountsRoomFor,
  walletAccountFree,
  walletNameFreeBut,
  walletOfOrganization,
  walletExported,
  privateKeyNameFree,
  privateKeysRoomFor,
  privateKeyOfOrganization,
  privateKeyExported,
  organizationKeysExported,
  signerStillThere,
  userOauthProvidersWithin,
  oauthProvidersOfUser,
  oauthProviderStillBound,
} satisfies Record<string, (...args: never[]) => Sql>;

/** What is taken from a supply that refuses once spent or taken: each a check that writes (store's Gate). */
const TAKES = {
  /** A send from a rate window of `scope` (its detail: seconds until the window frees a send). */
  rateWindow: (scope: string, limit: RateLimit): Gate => takeFromRateWindow(scope, limit),
  /** An OTP's one use (its detail: the OTP's state, to say why it cannot be used). */
  otp: (organizationId: string, otpId: string, now: Date, maxFailedAttempts: number): Gate => ({
    statement: claimOtp(organizationId, otpId, now, maxFailedAttempts),
    detail: otpState(otpId),
  }),
  /** A verification token's one use for `usage` (its detail: when it was used). */
  verificationToken: (token: { id: string; organizationId: string; expiresAt: Date }, usage: TokenUsage, activityId: string, now: Date): Gate => ({
    statement: useVerificationToken(token, usage, activityId, now),
    detail: verificationTokenUsedAt(token.id, usage),
  }),
  /** A smart contract interface, removed (nothing to remove: the take fails). */
  smartContractInterface: (organizationId: string, id: string): Gate => ({ statement: removeSmartContractInterface(organizationId, id) }),
  /** Values unique across the deployment or the organization (its detail: those taken already). */
  apiKeys: apiKeysFree,
  credentialIds: credentialIdsFree,
  userContacts: userContactsFree,
  usersContacts: usersContactsFree,
  oauthSubjects: oauthSubjectsFree,
  /** A pending import's one use, while unexpired. */
  pendingImport: usePendingImport,
} satisfies Record<string, (...args: never[]) => Gate>;

/** The rows an activity writes, each a statement part reading the activity's own row. */
const WRITES = {
  insertUsers: insertUsersOfActivity,
  updateUser: updateUserOfActivity,
  removeUsers: removeUsersOfActivity,
  markUserContactVerified,
  insertApiKeys: insertApiKeysOfActivity,
  revokeApiKeys: revokeApiKeysOfActivity,
  registerSessionKey,
  revokeOtherSessionKeys,
  revokeOtherOtpAuthKeys,
  revokeOtherEmailAuthKeys,
  revokeOtherRecoveryKeys,
  insertAuthenticators: insertAuthenticatorsOfActivity,
  revokeAuthenticators: revokeAuthenticatorsOfActivity,
  insertOauthProviders: insertOauthProvidersOfActivity,
  deleteOauthProviders: deleteOauthProvidersOfActivity,
  insertUserTag: insertUserTagOfActivity,
  insertUserTagMembers: insertUserTagMembersOfActivity,
  keepUserTagMembers: keepUserTagMembersOfActivity,
  deleteUserTags: deleteUserTagsOfActivity,
  insertPolicies: insertPoliciesOfActivity,
  updatePolicy: updatePolicyOfActivity,
  deletePolicies: deletePoliciesOfActivity,
  replaceRootQuorum: replaceRootQuorumOfActivity,
  insertSubOrganization: insertSubOrganizationOfActivity,
  deleteSubOrganization: deleteSubOrganizationOfActivity,
  insertWebhookEndpoint: insertWebhookEndpointOfActivity,
  updateWebhookEndpoint: updateWebhookEndpointOfActivity,
  deleteWebhookEndpoint: deleteWebhookEndpointOfActivity,
  insertSmartContractInterface,
  insertWallet: insertWalletOfActivity,
  insertWalletAccounts: insertWalletAccountsOfActivity,
  renameWallet: renameWalletOfActivity,
  deleteWallets: deleteWalletsOfActivity,
  insertPrivateKeys: insertPrivateKeysOfActivity,
  deletePrivateKeys: deletePrivateKeysOfActivity,
  markWalletExported: markWalletExportedOfActivity,
  markPrivateKeyExported: markPrivateKeyExportedOfActivity,
  replacePendingImport: replacePendingImportOfActivity,
  insertOtp,
  /** Approval emails to who may vote (queued messages: the delivery worker is woken). */
  requestApprovals: requestApprovalsOfActivity,
} satisfies Record<string, (activity: Sql, ...args: never[]) => Sql | Sql[]>;

/** Writes that queue messages for the delivery worker. */
const QUEUEING_WRITES: ReadonlySet<keyof typeof WRITES> = new Set(['requestApprovals']);

/** Rows locked before the statement, in its transaction, so that changes reading them run one after the other. */
const LOCKS = {
  /** The organization's row, without raising its authority version (changeAuthority locks it too). */
  organization: lockAuthority,
  userApiKeys: lockUserApiKeys,
  users: lockUsers,
  organizationUsers: lockOrganizationUsers,
  userTags: lockUserTags,
  approvalAddresses: lockApprovalAddresses,
} satisfies Record<string, (...args: never[]) => Sql>;

type Calls<Table, Omitted extends unknown[] = []> = {
  [Name in keyof Table]: Table[Name] extends (...args: [...Omitted, ...infer Args]) => unknown ? { name: Name; args: Args } : never;
}[keyof Table];

export type CheckName = keyof typeof CHECKS;
export type TakeName = keyof typeof TAKES;
export type WriteName = keyof typeof WRITES;
export type LockName = keyof typeof LOCKS;

/** A message queued with the activity; an email may take the organization's template, chosen in the statement. */
export interface QueuedMessage extends Omit<OutboxEntry, 'filledIn'> {
  /** The email template to fill the message in with: the one of that id, else the organization's newest. */
  emailTemplate?: { organizationId: string; templateId: string | undefined };
}

export type Effect =
  | ({ kind: 'check'; error: SignetError } & Calls<typeof CHECKS>)
  | ({ kind: 'take'; error: (detail: unknown) => SignetError } & Calls<typeof TAKES>)
  | ({ kind: 'write' } & Calls<typeof WRITES, [activity: Sql]>)
  | ({ kind: 'lock' } & Calls<typeof LOCKS>)
  | { kind: 'queue'; message: QueuedMessage }
  | { kind: 'changeAuthority'; organizationId: string };

/** What must hold for the activity to be written, and the refusal when it does not. */
export function check<Name extends CheckName>(name: Name, args: Parameters<(typeof CHECKS)[Name]>, error: SignetError): Effect {
  return { kind: 'check', name, args, error } as Effect;
}

/** What the activity takes from a supply, and the refusal (from the take's detail) when it cannot. */
export function take<Name extends TakeName>(name: Name, args: Parameters<(typeof TAKES)[Name]>, error: (detail: unknown) => SignetError): Effect {
  return { kind: 'take', name, args, error } as Effect;
}

type WriteArgs<Name extends WriteName> = (typeof WRITES)[Name] extends (activity: Sql, ...args: infer Args) => unknown ? Args : never;

/** Rows the activity writes. */
export function write<Name extends WriteName>(name: Name, ...args: WriteArgs<Name>): Effect {
  return { kind: 'write', name, args } as unknown as Effect;
}

/** Rows locked before the activity's statement. */
export function lock<Name extends LockName>(name: Name, ...args: Parameters<(typeof LOCKS)[Name]>): Effect {
  return { kind: 'lock', name, args } as Effect;
}

/** A message queued with the activity; the delivery worker is woken once it commits. */
export function queue(message: QueuedMessage): Effect {
  return { kind: 'queue', message };
}

/**
 * The activity changes what decides the organization's activities (its root quorum, its policies,
 * its users' tags): the organization's row is locked first (such changes run one after the other,
 * each seeing what the one before wrote) and its authority version raised in the statement, so
 * every process decides the next activity with what this one wrote.
 */
export function changeAuthority(organizationId: string): Effect {
  return { kind: 'changeAuthority', organizationId };
}

/** Effects compiled: the parts of the activity's statement, in the order the effects gave them. */
export interface CompiledEffects {
  /** Conditions read in the statement, each with the refusal when it does not hold. */
  guards: Array<{ condition: Sql; error: SignetError }>;
  /** Checks that write, each with the refusal built from its detail when it fails. */
  gates: Array<{ gate: Gate; error: (detail: unknown) => SignetError }>;
  /** The activity's own rows, each a statement part reading NEW_ACTIVITY. */
  rows: Sql[];
  /** Locks taken before the statement, in its transaction: the organization's row first when it changes authority. */
  locks: Sql[];
  /** A message is queued: the delivery worker is woken once the activity commits. */
  queuesDelivery: boolean;
  /** The statement raises the organization's authority version. */
  changesAuthority: boolean;
}

type AnyCall = (...args: unknown[]) => unknown;

/** The statement parts of these effects. */
export function compileEffects(effects: readonly Effect[]): CompiledEffects {
  const compiled: CompiledEffects = { guards: [], gates: [], rows: [], locks: [], queuesDelivery: false, changesAuthority: false };
  const authorityLocks: Sql[] = [];
  for (const effect of effects) {
    switch (effect.kind) {
      case 'check':
        compiled.guards.push({ condition: (CHECKS[effect.name] as AnyCall)(...effect.args) as Sql, error: effect.error });
        break;
      case 'take':
        compiled.gates.push({ gate: (TAKES[effect.name] as AnyCall)(...effect.args) as Gate, error: effect.error });
        break;
      case 'write': {
        const rows = (WRITES[effect.name] as AnyCall)(NEW_ACTIVITY, ...effect.args) as Sql | Sql[];
        compiled.rows.push(...(Array.isArray(rows) ? rows : [rows]));
        if (QUEUEING_WRITES.has(effect.name)) compiled.queuesDelivery = true;
        break;
      }
      case 'lock':
        compiled.locks.push((LOCKS[effect.name] as AnyCall)(...effect.args) as Sql);
        break;
      case 'queue': {
        const { emailTemplate, ...entry } = effect.message;
        compiled.rows.push(queueMessage(NEW_ACTIVITY, emailTemplate ? { ...entry, filledIn: chosenEmailTemplate(emailTemplate.organizationId, emailTemplate.templateId) } : entry));
        compiled.queuesDelivery = true;
        break;
      }
      case 'changeAuthority':
        if (!compiled.changesAuthority) authorityLocks.push(lockAuthority(effect.organizationId));
        compiled.changesAuthority = true;
        break;
    }
  }
  compiled.locks.unshift(...authorityLocks);
  return compiled;
}
