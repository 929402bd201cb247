// The update_user_phone_number activity (ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER): sets or removes a
// user's phone number. With a verification token for the new number (verify_otp's, in this
// organization or its parent) the number counts as verified from this moment; without one it counts
// as not verified.
import { z } from 'zod';
import { userPhoneNumber } from './createUsers.ts';
import type { ActivityHandler } from '../../handler.ts';
import { contactProof, planUserChange, redactVerificationToken, storedPhoneNumber, userIdParameter, verificationTokenParameter } from './userChanges.ts';

const parameters = z
  .strictObject({
    userId: userIdParameter,
    userPhoneNumber: userPhoneNumber.describe(
      "The new phone number in international form, stored in E.164 (+14155552671) and unique among the organization's users not removed; \"\" removes it",
    ),
    verificationToken: verificationTokenParameter.optional(),
  })
  .transform(({ userPhoneNumber, ...rest }) => ({ ...rest, userPhoneNumber: storedPhoneNumber(userPhoneNumber) ?? '' }));

const resultSchema = z.strictObject({ userId: z.uuid().describe('The user whose phone number was changed') });

export const updateUserPhoneNumber: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_user_phone_number',
  activityType: 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER',
  resource: 'USER',
  action: 'UPDATE',
  reasons: ['USER_NOT_FOUND'],
  summary: '`{userId, userPhoneNumber, verificationToken?}`: as `update_user_email`, for the phone number; result `updateUserPhoneNumberResult {userId}`',
  description:
    "Sets a user's phone number (`\"\"` removes it). With `verificationToken` (verify_otp's, for this number) the number counts as verified; a token that does not prove it, or was used before, is a 400 naming it. A number another user has is a 400.",
  intentKey: 'updateUserPhoneNumberIntent',
  resultKey: 'updateUserPhoneNumberResult',
  parameters,
  resultSchema,
  redact: redactVerificationToken,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', userPhoneNumber: '+14155552671' },

  async execute(context, intent) {
    const phoneNumber = storedPhoneNumber(intent.userPhoneNumber);
    const proof = intent.verificationToken === undefined ? undefined : await contactProof(context, intent.verificationToken, { phoneNumber });
    return planUserChange(context, intent.userId, { phoneNumber, phoneNumberVerified: proof !== undefined, proof });
  },
};
