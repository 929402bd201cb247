// Every activity type Signet accepts. Adding one is writing its handler file and listing it here.
import type { ActivityHandler } from './handler.ts';
import { createApiKeys } from './createApiKeys.ts';
import { createAuthenticators } from './createAuthenticators.ts';
import { createPolicies } from './createPolicies.ts';
import { createPolicy } from './createPolicy.ts';
import { createSmartContractInterface } from './createSmartContractInterface.ts';
import { createSubOrganization, createSubOrganizationV7 } from './createSubOrganization.ts';
import { createUsers } from './createUsers.ts';
import { createUserTag } from './createUserTag.ts';
import { deleteApiKeys } from './deleteApiKeys.ts';
import { deleteAuthenticators } from './deleteAuthenticators.ts';
import { deletePolicies } from './deletePolicies.ts';
import { deletePolicy } from './deletePolicy.ts';
import { deleteSmartContractInterface } from './deleteSmartContractInterface.ts';
import { deleteUsers } from './deleteUsers.ts';
import { deleteSubOrganization } from './deleteSubOrganization.ts';
import { deleteUserTags } from './deleteUserTags.ts';
import { initOtp } from './initOtp.ts';
import { initOtpAuth } from './initOtpAuth.ts';
import { otpAuth } from './otpAuth.ts';
import { otpLogin, otpLoginV2 } from './otpLogin.ts';
import { stampLogin } from './stampLogin.ts';
import { updatePolicy, updatePolicyV1 } from './updatePolicy.ts';
import { updateRootQuorum } from './updateRootQuorum.ts';
import { updateUser } from './updateUser.ts';
import { updateUserEmail } from './updateUserEmail.ts';
import { updateUserName } from './updateUserName.ts';
import { updateUserPhoneNumber } from './updateUserPhoneNumber.ts';
import { verifyOtp, verifyOtpV2 } from './verifyOtp.ts';
import { approveActivity, rejectActivity } from './voteOnActivity.ts';
import { createWebhookEndpoint } from './createWebhookEndpoint.ts';
import { deleteWebhookEndpoint } from './deleteWebhookEndpoint.ts';
import { updateWebhookEndpoint } from './updateWebhookEndpoint.ts';

export const activityHandlers: readonly ActivityHandler[] = [
  initOtpAuth,
  initOtp,
  verifyOtpV2,
  verifyOtp,
  otpLoginV2,
  otpLogin,
  stampLogin,
  otpAuth,
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
  approveActivity,
  rejectActivity,
  updateRootQuorum,
  createSubOrganization,
  createSubOrganizationV7,
  deleteSubOrganization,
  createWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
];
