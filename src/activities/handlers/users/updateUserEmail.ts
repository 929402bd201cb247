// The update_user_email activity (ACTIVITY_TYPE_UPDATE_USER_EMAIL): sets or removes a user's email.
// With a verification token for the new address (verify_otp's, in this organization or its parent)
// the address counts as verified from this moment; without one it counts as not verified.
import { z } from 'zod';
import { userEmail } from './createUsers.ts';
import type { ActivityHandler } from '../../handler.ts';
import { contactProof, planUserChange, redactVerificationToken, storedEmail, userIdParameter, verificationTokenParameter } from './userChanges.ts';

const parameters = z
  .strictObject({
    userId: userIdParameter,
    userEmail: userEmail.describe("The new email address, stored in lowercase and unique among the organization's users not removed; \"\" removes it"),
    verificationToken: verificationTokenParameter.optional(),
  })
  .transform(({ userEmail, ...rest }) => ({ ...rest, userEmail: storedEmail(userEmail) ?? '' }));

const resultSchema = z.strictObject({ userId: z.uuid().describe('The user whose email was changed') });

export const updateUserEmail: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_user_email',
  activityType: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
  resource: 'USER',
  action: 'UPDATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{userId, userEmail, verificationToken?}`: sets (`""` removes) the email; with verify_otp\'s token for it the address counts as verified; result `updateUserEmailResult {userId}`',
  description:
    "Sets a user's email address (`\"\"` removes it). With `verificationToken` (verify_otp's, for this address) the address counts as verified; a token that does not prove it, or was used before, is a 400 naming it. An address another user has is a 400.",
  intentKey: 'updateUserEmailIntent',
  resultKey: 'updateUserEmailResult',
  parameters,
  resultSchema,
  redact: redactVerificationToken,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', userEmail: 'alice@example.com' },

  async execute(context, intent) {
    const email = storedEmail(intent.userEmail);
    const proof = intent.verificationToken === undefined ? undefined : await contactProof(context, intent.verificationToken, { email });
    return planUserChange(context, intent.userId, { email, emailVerified: proof !== undefined, proof });
  },
};
