// list_suborgs and list_verified_suborgs (@turnkey/sdk-server's getSubOrgIds and
// getVerifiedSubOrgIds): a parent's sub-organizations not deleted, newest first, in pages, found by
// their name or by a user's name, contact or credential; the verified list only by a contact proven
// for the user (store/users.ts: a token given with it, or a code that logged that user in). The
// filter value is read as the store keeps it (an email in lowercase, a phone number in E.164, a
// public key compressed), so every spelling of one finds the same.
import { z } from 'zod';
import { canonicalFilterValue, SUB_ORGANIZATION_FILTERS as FILTERS, type SubOrganizationFilterType as FilterType } from '../activities/handlers/organizations/createSubOrganization.ts';
import { verifiedIdentity } from '../activities/handlers/credentials/oauthProviders.ts';
import { MAX_TOKEN_LENGTH } from '../auth/oidc/verifyIdToken.ts';
import { listSubOrganizationsFor, type SubOrganizationFilter } from '../store/subOrganizations.ts';
import { pageRequest, pageRows, paginationOptions } from './pagination.ts';
import { granted, type QueryHandler, type QueryContext } from './query.ts';

const VERIFIED_FILTERS = ['EMAIL', 'PHONE_NUMBER'] as const;
const MAX_FILTER_VALUE_LENGTH = 1024;

const organizationId = z.uuid({ message: 'must be the UUID of your organization, the parent' }).describe('Unique identifier of the parent organization');

const filterValue = z
  .string({ error: 'must be a string' })
  .max(MAX_FILTER_VALUE_LENGTH, `is longer than ${MAX_FILTER_VALUE_LENGTH} characters`)
  .describe('The value to match exactly: a name, an email address (any letter case), a phone number (E.164 once normalised), a passkey credential id (base64url), a P-256 public key (compressed or uncompressed hex)');

const listRequest = z
  .strictObject({
    organizationId,
    filterType: z
      .string({ error: 'must be a string' })
      .max(64)
      .describe(`One of ${FILTERS.join(', ')}; with filterValue. Without it, every sub-organization`)
      .optional(),
    // An id token (OIDC_TOKEN) is longer than the other values: each is bounded below.
    filterValue: z
      .string({ error: 'must be a string' })
      .max(MAX_TOKEN_LENGTH, `is longer than ${MAX_TOKEN_LENGTH} characters`)
      .describe(
        `The value to match exactly: a name, an email address (any letter case), a phone number (E.164 once normalised), a passkey credential id (base64url), a P-256 public key (compressed or uncompressed hex), at most ${MAX_FILTER_VALUE_LENGTH} characters; or an OpenID Connect id token (OIDC_TOKEN), at most ${MAX_TOKEN_LENGTH}`,
      )
      .optional(),
    paginationOptions: paginationOptions('a sub-organization'),
  })
  .superRefine((q, ctx) => {
    const type = q.filterType || undefined;
    const value = q.filterValue || undefined;
    if (type !== 'OIDC_TOKEN' && value !== undefined && value.length > MAX_FILTER_VALUE_LENGTH) {
      ctx.addIssue({ code: 'custom', path: ['filterValue'], message: `is longer than ${MAX_FILTER_VALUE_LENGTH} characters` });
    }
    if (type !== undefined && !(FILTERS as readonly string[]).includes(type)) {
      ctx.addIssue({ code: 'custom', path: ['filterType'], message: `must be one of ${FILTERS.join(', ')} (Signet has no wallet account filter)` });
    } else if (type !== undefined && value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['filterValue'], message: `is required with filterType ${type}: the value to match` });
    } else if (type === undefined && value !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['filterType'], message: `is required with filterValue: one of ${FILTERS.join(', ')}` });
    }
  });

const verifiedRequest = z.strictObject({
  organizationId,
  filterType: z.enum(VERIFIED_FILTERS, { message: `must be ${VERIFIED_FILTERS.join(' or ')}` }).describe('EMAIL or PHONE_NUMBER: which verified contact to match'),
  filterValue: filterValue.min(1, 'must not be empty: the email address or phone number to match'),
  paginationOptions: paginationOptions('a sub-organization'),
});

const answer = z.strictObject({
  organizationIds: z.array(z.uuid()).describe('The matching sub-organizations, newest first: one page'),
});

async function page(context: QueryContext, query: { organizationId: string; paginationOptions?: z.output<ReturnType<typeof paginationOptions>> }, filter?: SubOrganizationFilter) {
  const { page } = granted(
    context,
    await listSubOrganizationsFor(context.db, context.principal.credential, {
      parentId: query.organizationId,
      page: pageRequest(query.paginationOptions),
      ...(filter ? { filter } : {}),
    }),
  );
  const rows = pageRows(page!, query.paginationOptions, 'paginationOptions', "among this organization's sub-organizations");
  return { organizationIds: rows.map((row) => row.id) };
}

export const getSubOrgIds: QueryHandler = {
  path: 'list_suborgs',
  description:
    "The organization's sub-organizations not deleted, newest first, in pages (`@turnkey/sdk-server`'s `getSubOrgIds`), optionally only those matching `filterType` NAME (the sub-organization's name), USERNAME, EMAIL or PHONE_NUMBER (of a user not removed), CREDENTIAL_ID (of a passkey not revoked), PUBLIC_KEY (of an API key not revoked) or OIDC_TOKEN (an id token of SIGNET_OIDC_ISSUERS, verified: a user bound to its issuer and subject, [OAuth](oauth.md)).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', filterType: 'EMAIL', filterValue: 'alice@example.com', paginationOptions: { limit: '10' } },
  request: listRequest,
  answer,
  async run(context, query: z.output<typeof listRequest>) {
    const type = (query.filterType || undefined) as FilterType | undefined;
    if (type === 'OIDC_TOKEN') {
      // Verified (issuer, signature, expiry) before it finds anything; its nonce and audience are not read: no session starts.
      const identity = await verifiedIdentity(context.oidc, query.filterValue!, 'filterValue', { publicKey: undefined });
      return page(context, query, { kind: 'OIDC_SUBJECT', issuer: identity.issuer, subject: identity.subject });
    }
    return page(context, query, type === undefined ? undefined : { kind: type, value: canonicalFilterValue(type, query.filterValue!) });
  },
};

export const getVerifiedSubOrgIds: QueryHandler = {
  path: 'list_verified_suborgs',
  description:
    "The organization's sub-organizations not deleted having a user (not removed) with this email address or phone number proven for that user (a verification token given with it, at the sub-organization's creation or with update_user_email / update_user_phone_number, or a code that logged that user in; a code checked in the parent alone proves no user's copy), newest first, in pages (`@turnkey/sdk-server`'s `getVerifiedSubOrgIds`).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', filterType: 'EMAIL', filterValue: 'alice@example.com' },
  request: verifiedRequest,
  answer,
  async run(context, query: z.output<typeof verifiedRequest>) {
    const value = canonicalFilterValue(query.filterType, query.filterValue);
    return page(context, query, { kind: query.filterType === 'EMAIL' ? 'VERIFIED_EMAIL' : 'VERIFIED_PHONE_NUMBER', value });
  },
};
