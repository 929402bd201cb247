// The update_user_name activity (ACTIVITY_TYPE_UPDATE_USER_NAME): renames a user of the organization.
import { z } from 'zod';
import { name } from '../../wire/parameters.ts';
import type { ActivityHandler } from '../../handler.ts';
import { planUserChange, userIdParameter } from './userChanges.ts';

const parameters = z.strictObject({
  userId: userIdParameter,
  userName: name.describe('The new name of the user; not blank'),
});

const resultSchema = z.strictObject({ userId: z.uuid().describe('The renamed user') });

export const updateUserName: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_user_name',
  activityType: 'ACTIVITY_TYPE_UPDATE_USER_NAME',
  resource: 'USER',
  action: 'UPDATE',
  reasons: ['USER_NOT_FOUND'],
  summary: '`{userId, userName}`; result `updateUserNameResult {userId}`',
  description: "Renames a user of the organization (`@turnkey/http`'s `updateUserName`); an unknown or removed user is a 404.",
  intentKey: 'updateUserNameIntent',
  resultKey: 'updateUserNameResult',
  parameters,
  resultSchema,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', userName: 'Alice Liddell' },

  async execute(context, intent) {
    return planUserChange(context, intent.userId, { userName: intent.userName });
  },
};
