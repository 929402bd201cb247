// Runs an activity handler through the real pipeline on a test store, without HTTP: the activity, its
// rows and its vote are written by the pipeline's one statement, stamped by an API key of the
// organization (made here once per organization).
import { randomUUID } from 'node:crypto';
import { envelopeOf } from '../../src/activities/lifecycle/intake.ts';
import { ActivityPipeline } from '../../src/activities/lifecycle/pipeline.ts';
import type { ActivityHandler } from '../../src/activities/handler.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { parseBody } from '../../src/wire/jsonDocument.ts';
import { ServiceKeys } from '../../src/activities/lifecycle/serviceKeys.ts';
import { generateApiKeyPair } from '../../src/admin/organizations.ts';
import { deploymentSecretKek } from '../../src/keys/custody/deploymentSecretKek.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/store/db.ts';

const principals = new WeakMap<Database, Map<string, Principal>>();

/** A user with an API key in the organization (which must exist), as the pipeline's principal. */
async function principalOf(db: Database, organizationId: string, now: Date): Promise<Principal> {
  const known = principals.get(db) ?? new Map<string, Principal>();
  principals.set(db, known);
  const existing = known.get(organizationId);
  if (existing) return { ...existing, credential: { ...existing.credential, now } as Principal['credential'] };
  const userId = randomUUID();
  const apiKeyId = randomUUID();
  const pair = generateApiKeyPair();
  const [user] = await db.query<{ created_at: Date; updated_at: Date }>(
    'INSERT INTO users (id, organization_id, user_name) VALUES ($1, $2, $3) RETURNING created_at, updated_at',
    [userId, organizationId, 'handler test'],
  );
  await db.query('INSERT INTO api_keys (id, organization_id, user_id, name, public_key) VALUES ($1, $2, $3, $4, $5)', [
    apiKeyId, organizationId, userId, 'handler test key', pair.apiPublicKey,
  ]);
  // A member of the organization's root quorum (threshold 1): its activities are allowed at once.
  await db.query('INSERT INTO root_quorums (organization_id, threshold) VALUES ($1, 1) ON CONFLICT DO NOTHING', [organizationId]);
  await db.query('INSERT INTO root_quorum_members (organization_id, user_id) VALUES ($1, $2)', [organizationId, userId]);
  const principal: Principal = {
    organizationId,
    userId,
    userName: 'handler test',
    userEmail: null,
    userPhoneNumber: null,
    userCreatedAt: user!.created_at,
    userUpdatedAt: user!.updated_at,
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    publicKey: pair.apiPublicKey,
    signature: '30',
    credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
    credential: { kind: 'apiKey', apiKeyId, now },
  };
  known.set(organizationId, principal);
  return principal;
}

/** Submits `parameters` to `handler` as the pipeline does for a stamped request; returns the activity object. */
export async function runActivity(
  db: Database,
  handler: ActivityHandler,
  options: { organizationId: string; parameters: unknown; config: Config; secret: Buffer; now?: Date },
): Promise<{ id: string; result: Record<string, any>; [key: string]: any }> {
  const now = options.now ?? new Date();
  const pipeline = new ActivityPipeline({ db, config: options.config, secret: options.secret, keys: new ServiceKeys(db, options.secret), kek: deploymentSecretKek(options.secret), handlers: [handler], now: () => now });
  const body = Buffer.from(
    JSON.stringify({ type: handler.activityType, timestampMs: String(now.getTime()), organizationId: options.organizationId, parameters: options.parameters, nonce: randomUUID() }),
  );
  const document = parseBody(body);
  delete document.nonce;
  const { envelope } = envelopeOf([handler], document);
  const outcome = await pipeline.submit(handler, { body, document, envelope, principal: await principalOf(db, options.organizationId, now), stampHeader: 'test' });
  const { activity } = JSON.parse(outcome.json);
  return { ...activity, result: activity.result[handler.resultKey] };
}
