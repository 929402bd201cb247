// list_user_tags: the organization's user tags, newest first, in pages (queries/pagination.ts), in
// the ecosystem's shape (tagType TAG_TYPE_USER; times in RFC 3339 like every Signet time).
import { z } from 'zod';
import { listUserTagsFor, type UserTagRecord } from '../store/userTags.ts';
import { pageRequest, pageRows, paginationOptions, type PaginationOptions } from './pagination.ts';
import { granted, type QueryHandler } from './query.ts';

function render(record: UserTagRecord) {
  return {
    tagId: record.id,
    tagName: record.name,
    tagType: 'TAG_TYPE_USER',
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

const userTagSchema = z
  .strictObject({
    tagId: z.uuid().describe('Identifier of the tag, by which consensus rules and create_users name it'),
    tagName: z.string().describe('Name of the tag, unique in the organization'),
    tagType: z.literal('TAG_TYPE_USER').describe('TAG_TYPE_USER: a tag of users'),
    createdAt: z.iso.datetime().describe('Creation time (RFC 3339)'),
    updatedAt: z.iso.datetime().describe('Time of the last update (RFC 3339)'),
  })
  .meta({ id: 'UserTag', description: "A tag of the organization's users" });

export const listUserTags: QueryHandler = {
  path: 'list_user_tags',
  description: "The organization's user tags, newest first, in pages (cursors are tag ids).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', paginationOptions: { limit: '10' } },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
    paginationOptions: paginationOptions('a user tag'),
  }),
  answer: z.strictObject({ userTags: z.array(userTagSchema).describe("The organization's user tags, newest first: one page") }),
  async run(context, query: { organizationId: string; paginationOptions?: PaginationOptions }) {
    const { page } = granted(
      context,
      await listUserTagsFor(context.db, context.principal.credential, query.organizationId, pageRequest(query.paginationOptions)),
    );
    return { userTags: pageRows(page!, query.paginationOptions).map(render) };
  },
};
