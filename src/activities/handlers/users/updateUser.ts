// The update_user activity (ACTIVITY_TYPE_UPDATE_USER): changes a user's name, contacts and tags, in
// the shape @turnkey/http's updateUser sends. Fields left out stay as they are; "" for a contact
// removes it; userTagIds, when given, replaces the user's tags (and so changes who may do what). A
// new contact is free in the organization and counts as not verified (update_user_email with a
// verification token proves one).
import { z } from 'zod';
import { name } from '../../wire/parameters.ts';
import { MAX_USER_TAGS_PER_USER, userEmail, userPhoneNumber } from './createUsers.ts';
import type { ActivityHandler } from '../../handler.ts';
import { planUserChange, storedEmail, storedPhoneNumber, userIdParameter } from './userChanges.ts';

const parameters = z
  .strictObject({
    userId: userIdParameter,
    userName: name.describe('The new name of the user; not blank').optional(),
    userEmail: userEmail
      .describe("The new email address, stored in lowercase and unique among the organization's users not removed; \"\" removes it. It counts as not verified until verified again")
      .optional(),
    userTagIds: z
      .array(z.uuid({ message: 'must be a user tag id (a UUID), as create_user_tag returned it' }).transform((id) => id.toLowerCase()), {
        error: 'must be an array of user tag ids',
      })
      .max(MAX_USER_TAGS_PER_USER, `may hold at most ${MAX_USER_TAGS_PER_USER} user tag ids`)
      .describe(`When given, the user's tags become exactly these (tags of the organization, at most ${MAX_USER_TAGS_PER_USER}; [] takes every tag away); left out, the tags stay`)
      .optional(),
    userPhoneNumber: userPhoneNumber
      .describe("The new phone number in international form, stored in E.164 and unique among the organization's users not removed; \"\" removes it. It counts as not verified until verified again")
      .optional(),
  })
  .superRefine((p, ctx) => {
    if (p.userName === undefined && p.userEmail === undefined && p.userTagIds === undefined && p.userPhoneNumber === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'changes nothing: give at least one of userName, userEmail, userPhoneNumber or userTagIds' });
    }
    p.userTagIds?.forEach((tagId, i) => {
      if (p.userTagIds!.indexOf(tagId) !== i) ctx.addIssue({ code: 'custom', path: ['userTagIds', i], message: 'lists this tag twice; each may appear once' });
    });
  })
  // In the intent the contacts are as they are stored and matched (createUsers' form); "" stays "".
  .transform(({ userEmail, userPhoneNumber, ...rest }) => ({
    ...rest,
    ...(userEmail !== undefined ? { userEmail: storedEmail(userEmail) ?? '' } : {}),
    ...(userPhoneNumber !== undefined ? { userPhoneNumber: storedPhoneNumber(userPhoneNumber) ?? '' } : {}),
  }));

const resultSchema = z.strictObject({ userId: z.uuid().describe('The changed user') });

export const updateUser: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_user',
  activityType: 'ACTIVITY_TYPE_UPDATE_USER',
  resource: 'USER',
  action: 'UPDATE',
  reasons: ['USER_NOT_FOUND', 'USER_TAG_NOT_FOUND'],
  summary:
    '`{userId, userName?, userEmail?, userPhoneNumber?, userTagIds?}`: the fields given change, `""` removes a contact, `userTagIds` replaces the tags; result `updateUserResult {userId}` ([managing users](users.md#managing-users-and-passkeys-by-activity))',
  description:
    "Changes a user's name, email, phone number and tags (as `@turnkey/http`'s `updateUser` sends them); fields left out stay, `\"\"` removes a contact, `userTagIds` replaces the tags. A contact another user has is a 400 naming the field; an unknown user or tag a 404.",
  intentKey: 'updateUserIntent',
  resultKey: 'updateUserResult',
  parameters,
  resultSchema,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', userName: 'Alice Liddell', userEmail: 'alice@example.com', userTagIds: [] },

  async execute(context, intent) {
    return planUserChange(context, intent.userId, {
      userName: intent.userName,
      email: intent.userEmail === undefined ? undefined : storedEmail(intent.userEmail),
      phoneNumber: intent.userPhoneNumber === undefined ? undefined : storedPhoneNumber(intent.userPhoneNumber),
      tagIds: intent.userTagIds,
    });
  },
};
