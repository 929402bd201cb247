// get_organization_configs (the organization's root quorum, no features) and get_organization (the
// organization with its root quorum, its first users and its policies), as @turnkey/http's
// getOrganizationConfigs and getOrganization ask them.
import { z } from 'zod';
import { userSchema } from '../activities/wire/activitySchema.ts';
import { userFieldsOf, userJson } from '../activities/wire/render.ts';
import { notFound } from '../errors.ts';
import { findOrganizationFor } from '../store/organizations.ts';
import { findRootQuorumFor } from '../store/rootQuorums.ts';
import { rootQuorumSchema } from '../activities/handlers/policies/updateRootQuorum.ts';
import { policySchema, renderPolicy } from './policies.ts';
import { granted, type QueryHandler } from './query.ts';

/** get_organization lists this many users at most: the oldest, not removed. */
export const ORGANIZATION_USERS_LIMIT = 100;

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');
const example = { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' };

/** Empty lists the ecosystem's clients expect, of things Signet does not have yet. */
const noneYet = (what: string) => z.array(z.unknown()).max(0).describe(`${what}: Signet has none yet; always empty`);

function missing(organizationId: string): never {
  throw notFound('ORGANIZATION_NOT_FOUND', `no organization ${organizationId}`);
}

export const getOrganizationConfigs: QueryHandler = {
  path: 'get_organization_configs',
  description: "The organization's configuration (`@turnkey/http`'s `getOrganizationConfigs`): its root quorum, and no features.",
  example,
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({
    configs: z.strictObject({ features: noneYet('Organization features'), quorum: rootQuorumSchema }).describe("The organization's configuration"),
  }),
  async run(context, query: { organizationId: string }) {
    const { quorum } = granted(context, await findRootQuorumFor(context.db, context.principal.credential, query.organizationId));
    if (!quorum) missing(query.organizationId);
    return { configs: { features: [], quorum } };
  },
};

export const getOrganization: QueryHandler = {
  path: 'get_organization',
  description:
    `The organization (\`@turnkey/http\`'s \`getOrganization\`): its name, its root quorum and its users not removed, ` +
    `the first ${ORGANIZATION_USERS_LIMIT} by creation at most (oldest first), each with its tag ids, and its policies (oldest first, as list_policies answers them). \`tags\` is empty: list the organization's tags with list_user_tags.`,
  example,
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({
    organizationData: z
      .strictObject({
        organizationId: z.uuid().describe('Unique identifier of the organization'),
        name: z.string().describe('Name of the organization'),
        users: z
          .array(userSchema)
          .max(ORGANIZATION_USERS_LIMIT)
          .describe(`The organization's users not removed, oldest first: the first ${ORGANIZATION_USERS_LIMIT} at most`),
        policies: z.array(policySchema).describe("The organization's policies, oldest first, as list_policies answers them"),
        rootQuorum: rootQuorumSchema,
        tags: z.array(z.unknown()).max(0).describe('Always empty: list_user_tags lists the organization\'s tags'),
      })
      .describe('The organization'),
  }),
  async run(context, query: { organizationId: string }) {
    const { organization } = granted(
      context,
      await findOrganizationFor(context.db, context.principal.credential, query.organizationId, ORGANIZATION_USERS_LIMIT),
    );
    if (!organization) missing(query.organizationId);
    const users = organization.users.map((user) => userJson(userFieldsOf(user)));
    const q = JSON.stringify;
    return (
      `{"organizationData":{"organizationId":${q(organization.id)},"name":${q(organization.name)},"users":[${users.join(',')}],` +
      `"policies":${q(organization.policies.map(renderPolicy))},"rootQuorum":${q(organization.rootQuorum)},"tags":[]}}`
    );
  },
};
