// Every activity type Signet accepts. Adding one is writing its handler file and listing it here.
// The votes on them (approve_activity, reject_activity) are a route family of their own, declared in
// lifecycle/votes.ts.
import type { ActivityHandler } from './handler.ts';
import type { ActivityDeclaration } from './declarations.ts';
import { voteRoutes } from './lifecycle/votes.ts';
import { createApiKeys } from './handlers/credentials/createApiKeys.ts';
import { createAuthenticators } from './handlers/credentials/createAuthenticators.ts';
import { createPolicies } from './handlers/policies/createPolicies.ts';
import { createPolicy } from './handlers/policies/createPolicy.ts';
import { createSmartContractInterface } from './handlers/contracts/createSmartContractInterface.ts';
import { createSubOrganization, createSubOrganizationV7 } from './handlers/organizations/createSubOrganization.ts';
import { createUsers } from './handlers/users/createUsers.ts';
import { createUserTag } from './handlers/users/createUserTag.ts';
import { deleteApiKeys } from './handlers/credentials/deleteApiKeys.ts';
import { deleteAuthenticators } from './handlers/credentials/deleteAuthenticators.ts';
import { deletePolicies } from './handlers/policies/deletePolicies.ts';
import { deletePolicy } from './handlers/policies/deletePolicy.ts';
import { deleteSmartContractInterface } from './handlers/contracts/deleteSmartContractInterface.ts';
import { deleteUsers } from './handlers/users/deleteUsers.ts';
import { deleteSubOrganization } from './handlers/organizations/deleteSubOrganization.ts';
import { deleteUserTags } from './handlers/users/deleteUserTags.ts';
import { initOtp } from './handlers/auth/initOtp.ts';
import { initOtpAuth } from './handlers/auth/initOtpAuth.ts';
import { otpAuth } from './handlers/auth/otpAuth.ts';
import { otpLogin, otpLoginV2 } from './handlers/auth/otpLogin.ts';
import { stampLogin } from './handlers/auth/stampLogin.ts';
import { oauthLogin } from './handlers/auth/oauthLogin.ts';
import { createOauthProviders, createOauthProvidersV1 } from './handlers/credentials/createOauthProviders.ts';
import { deleteOauthProviders } from './handlers/credentials/deleteOauthProviders.ts';
import { createReadWriteSession } from './handlers/auth/createReadWriteSession.ts';
import { createReadOnlySession } from './handlers/auth/createReadOnlySession.ts';
import { emailAuth } from './handlers/auth/emailAuth.ts';
import { initUserEmailRecovery } from './handlers/auth/initUserEmailRecovery.ts';
import { recoverUser } from './handlers/auth/recoverUser.ts';
import { updatePolicy, updatePolicyV1 } from './handlers/policies/updatePolicy.ts';
import { updateRootQuorum } from './handlers/policies/updateRootQuorum.ts';
import { updateUser } from './handlers/users/updateUser.ts';
import { updateUserEmail } from './handlers/users/updateUserEmail.ts';
import { updateUserName } from './handlers/users/updateUserName.ts';
import { updateUserPhoneNumber } from './handlers/users/updateUserPhoneNumber.ts';
import { verifyOtp, verifyOtpV2 } from './handlers/auth/verifyOtp.ts';
import { createWebhookEndpoint } from './handlers/webhooks/createWebhookEndpoint.ts';
import { deleteWebhookEndpoint } from './handlers/webhooks/deleteWebhookEndpoint.ts';
import { updateWebhookEndpoint } from './handlers/webhooks/updateWebhookEndpoint.ts';
import { createWallet } from './handlers/wallets/createWallet.ts';
import { createWalletAccounts } from './handlers/wallets/createWalletAccounts.ts';
import { deleteWallets } from './handlers/wallets/deleteWallets.ts';
import { updateWallet } from './handlers/wallets/updateWallet.ts';
import { createPrivateKeys } from './handlers/privateKeys/createPrivateKeys.ts';
import { deletePrivateKeys } from './handlers/privateKeys/deletePrivateKeys.ts';
import { exportPrivateKey } from './handlers/privateKeys/exportPrivateKey.ts';
import { importPrivateKey } from './handlers/privateKeys/importPrivateKey.ts';
import { initImportPrivateKey } from './handlers/privateKeys/initImportPrivateKey.ts';
import { exportWallet } from './handlers/wallets/exportWallet.ts';
import { exportWalletAccount } from './handlers/wallets/exportWalletAccount.ts';
import { importWallet } from './handlers/wallets/importWallet.ts';
import { initImportWallet } from './handlers/wallets/initImportWallet.ts';
import { signRawPayload } from './handlers/wallets/signRawPayload.ts';
import { signRawPayloads } from './handlers/wallets/signRawPayloads.ts';
import { signTransaction } from './handlers/wallets/signTransaction.ts';

export const activityHandlers: readonly ActivityHandler[] = [
  initOtpAuth,
  initOtp,
  verifyOtpV2,
  verifyOtp,
  otpLoginV2,
  otpLogin,
  stampLogin,
  oauthLogin,
  otpAuth,
  createReadWriteSession,
  createReadOnlySession,
  emailAuth,
  initUserEmailRecovery,
  recoverUser,
  createSmartContractInterface,
  deleteSmartContractInterface,
  createUsers,
  updateUser,
  updateUserEmail,
  updateUserPhoneNumber,
  updateUserName,
  deleteUsers,
  createAuthenticators,
  deleteAuthenticators,
  createOauthProviders,
  createOauthProvidersV1,
  deleteOauthProviders,
  createUserTag,
  createApiKeys,
  deleteApiKeys,
  deleteUserTags,
  createPolicy,
  createPolicies,
  updatePolicy,
  updatePolicyV1,
  deletePolicy,
  deletePolicies,
  updateRootQuorum,
  createSubOrganization,
  createSubOrganizationV7,
  deleteSubOrganization,
  createWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  createWallet,
  createWalletAccounts,
  updateWallet,
  deleteWallets,
  createPrivateKeys,
  deletePrivateKeys,
  signRawPayload,
  signRawPayloads,
  signTransaction,
  exportWallet,
  exportWalletAccount,
  initImportWallet,
  importWallet,
  exportPrivateKey,
  initImportPrivateKey,
  importPrivateKey,
];

/**
 * Every route of POST /public/v1/submit/<path> as declared: the activities', then the votes' (their
 * own family, lifecycle/votes.ts). The policy kind table, the OpenAPI document and the docs' tables
 * are written from this list.
 */
export const activityDeclarations: readonly ActivityDeclaration[] = [...activityHandlers, ...voteRoutes];
