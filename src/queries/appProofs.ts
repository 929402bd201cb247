// get_app_proofs (an activity's App Proofs) and get_app_proof_keys (the keys that sign them).
import { z } from 'zod';
import { APP_PROOF_KEY, APP_PROOF_SCHEME, appProofKeyList } from '../activities/lifecycle/appProofs.ts';
import { appProofSchema } from '../activities/wire/activitySchema.ts';
import { notFound } from '../errors.ts';
import { findActivityFor } from '../store/activities.ts';
import { listSigningKeysFor } from '../store/signingKeys.ts';
import { granted, type QueryHandler } from './query.ts';

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');

export const getAppProofs: QueryHandler = {
  path: 'get_app_proofs',
  description: "An activity's App Proofs (`@turnkey/http`'s `getAppProofs` posts to `list_app_proofs`, the same query).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({
    organizationId,
    activityId: z.uuid({ message: 'must be an activity id (a UUID)' }).describe("The activity whose App Proofs to read; another organization's is a 404"),
  }),
  answer: z.strictObject({ appProofs: z.array(appProofSchema).describe('The App Proofs of the activity: empty unless it was submitted with generateAppProofs: true') }),
  async run(context, query: { organizationId: string; activityId: string }) {
    const { activity } = granted(
      context,
      await findActivityFor(context.db, context.principal.credential, { organizationId: query.organizationId, id: query.activityId }),
    );
    if (!activity) throw notFound('ACTIVITY_NOT_FOUND', `no activity ${query.activityId} in organization ${query.organizationId}`);
    return { appProofs: activity.appProofs ?? [] };
  },
};

export const getAppProofKeys: QueryHandler = {
  path: 'get_app_proof_keys',
  description: 'The keys that sign App Proofs, in the form the proofs carry them: pin them once.',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({
    appProofKeys: z
      .array(
        z.strictObject({
          publicKey: z.string().regex(/^04[0-9a-f]{128}04[0-9a-f]{128}$/).describe("The proof key as proofs carry it: 260 hex characters, the uncompressed P-256 key twice"),
          scheme: z.literal(APP_PROOF_SCHEME).describe('Signature scheme of the proofs'),
          createdAt: z.iso.datetime().describe('When the key was created (RFC 3339)'),
        }),
      )
      .describe('The keys this service signs App Proofs with, or signed with: pin them once'),
  }),
  async run(context) {
    const { keys } = granted(context, await listSigningKeysFor(context.db, context.principal.credential, APP_PROOF_KEY));
    return { appProofKeys: appProofKeyList(keys!) };
  },
};
