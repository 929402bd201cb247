// Every activity type Signet accepts. Adding one is writing its handler file and listing it here.
import type { ActivityHandler } from './handler.ts';
import { createSmartContractInterface } from './createSmartContractInterface.ts';
import { createUsers } from './createUsers.ts';
import { deleteSmartContractInterface } from './deleteSmartContractInterface.ts';
import { initOtpAuth } from './initOtpAuth.ts';
import { verifyOtp } from './verifyOtp.ts';

export const activityHandlers: readonly ActivityHandler[] = [
  initOtpAuth,
  verifyOtp,
  createSmartContractInterface,
  deleteSmartContractInterface,
  createUsers,
];
