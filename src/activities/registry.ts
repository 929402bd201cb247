// Every activity type Signet accepts. Adding one is writing its handler file and listing it here.
import type { ActivityHandler } from './handler.ts';
import { createApiKeys } from './createApiKeys.ts';
import { createPolicies } from './createPolicies.ts';
import { createPolicy } from './createPolicy.ts';
import { createSmartContractInterface } from './createSmartContractInterface.ts';
import { createUsers } from './createUsers.ts';
import { createUserTag } from './createUserTag.ts';
import { deleteApiKeys } from './deleteApiKeys.ts';
import { deletePolicies } from './deletePolicies.ts';
import { deletePolicy } from './deletePolicy.ts';
import { deleteSmartContractInterface } from './deleteSmartContractInterface.ts';
import { deleteUserTags } from './deleteUserTags.ts';
import { initOtp } from './initOtp.ts';
import { initOtpAuth } from './initOtpAuth.ts';
import { otpLogin, otpLoginV2 } from './otpLogin.ts';
import { stampLogin } from './stampLogin.ts';
import { updatePolicy, updatePolicyV1 } from './updatePolicy.ts';
import { updateRootQuorum } from './updateRootQuorum.ts';
import { verifyOtp, verifyOtpV2 } from './verifyOtp.ts';
import { approveActivity, rejectActivity } from './voteOnActivity.ts';

export const activityHandlers: readonly ActivityHandler[] = [
  initOtpAuth,
  initOtp,
  verifyOtpV2,
  verifyOtp,
  otpLoginV2,
  otpLogin,
  stampLogin,
  createSmartContractInterface,
  deleteSmartContractInterface,
  createUsers,
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
];
