// Every query Signet answers. Adding one is writing its file and listing it here.
import { getAppProofKeys, getAppProofs } from './appProofs.ts';
import { getApiKey, getApiKeys, getAuthenticator, getAuthenticators } from './credentials.ts';
import { evaluatePolicies } from './evaluatePolicies.ts';
import { getActivity } from './getActivity.ts';
import { listActivities } from './listActivities.ts';
import { getMfaStatus } from './mfaStatus.ts';
import { getOrganization, getOrganizationConfigs } from './organization.ts';
import { getPolicy, listPolicies } from './policies.ts';
import { getPolicyEvaluations } from './policyEvaluations.ts';
import { getPrivateKey, listPrivateKeys } from './privateKeys.ts';
import type { QueryHandler } from './query.ts';
import { getSmartContractInterface, listSmartContractInterfaces } from './smartContractInterfaces.ts';
import { getSubOrgIds, getVerifiedSubOrgIds } from './subOrganizations.ts';
import { listUserTags } from './userTags.ts';
import { getUser, listUsers, whoami } from './users.ts';
import { getWallet, getWalletAccount, listWalletAccounts, listWallets } from './wallets.ts';
import { listWebhookEndpoints } from './webhookEndpoints.ts';

export const queryHandlers: readonly QueryHandler[] = [
  getActivity,
  listActivities,
  getSmartContractInterface,
  listSmartContractInterfaces,
  getAppProofs,
  // @turnkey/http's getAppProofs posts to list_app_proofs: the same query under that name.
  { ...getAppProofs, path: 'list_app_proofs' },
  getAppProofKeys,
  getOrganizationConfigs,
  getOrganization,
  listUserTags,
  getPolicyEvaluations,
  getPolicy,
  listPolicies,
  evaluatePolicies,
  getMfaStatus,
  whoami,
  getUser,
  listUsers,
  getApiKeys,
  getApiKey,
  getAuthenticators,
  getAuthenticator,
  getSubOrgIds,
  getVerifiedSubOrgIds,
  listWebhookEndpoints,
  getWallet,
  listWallets,
  listWalletAccounts,
  getWalletAccount,
  getPrivateKey,
  listPrivateKeys,
];
