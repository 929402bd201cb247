// get_app_proofs (an activity's App Proofs) and get_app_proof_keys (the keys that sign them).
import { z } from 'zod';
import { APP_PROOF_KEY, appProofKeyList } from '../activities/appProofs.ts';
import { notFound } from '../errors.ts';
import { findActivityFor } from '../store/activities.ts';
import { listSigningKeysFor } from '../store/signingKeys.ts';
import { granted, type QueryHandler } from './query.ts';

const organizationId = z.uuid({ message: 'must be the UUID of your organization' });

export const getAppProofs: QueryHandler = {
  path: 'get_app_proofs',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({ organizationId, activityId: z.uuid({ message: 'must be an activity id (a UUID)' }) }),
  async run(context, query: { organizationId: string; activityId: string }) {
    const { activity } = granted(
      context,
      await findActivityFor(context.db, context.principal.credential, { organizationId: query.organizationId, id: query.activityId }),
    );
    if (!activity) throw notFound(`no activity ${query.activityId} in organization ${query.organizationId}`);
    return { appProofs: activity.appProofs ?? [] };
  },
};

export const getAppProofKeys: QueryHandler = {
  path: 'get_app_proof_keys',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  async run(context) {
    const { keys } = granted(context, await listSigningKeysFor(context.db, context.principal.credential, APP_PROOF_KEY));
    return { appProofKeys: appProofKeyList(keys!) };
  },
};
