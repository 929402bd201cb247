// App Proofs (the seed's optional generateAppProofs flag): a statement binding an activity's id,
// type, organization, fingerprint, timestampMs and result, signed with the service's P-256 proof
// key, so anyone holding the activity can check offline that this service produced that result.
import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import type { PublicKeyJwk } from '../store/signingKeys.ts';
import type { ServiceKeys } from './serviceKeys.ts';

export const APP_PROOF_SCHEME = 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
const PURPOSE = 'app-proof';

export interface AppProof {
  scheme: typeof APP_PROOF_SCHEME;
  /** The proof key, compressed P-256, hex. */
  publicKey: string;
  /** JSON of the statement; the signature is over its UTF-8 bytes (ECDSA P-256 with SHA-256). */
  proofPayload: string;
  /** DER ECDSA signature, hex. */
  signature: string;
}

export interface ProvenActivity {
  id: string;
  type: string;
  organizationId: string;
  fingerprint: string;
  timestampMs: string;
  /** The handler's result object, e.g. {"otpId": "…"}. */
  result: object;
}

/** JSON with object keys sorted at every level: the same bytes however the result was stored. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function proofPayloadFor(activity: ProvenActivity): string {
  return JSON.stringify({
    activityId: activity.id,
    activityType: activity.type,
    organizationId: activity.organizationId,
    fingerprint: activity.fingerprint,
    timestampMs: activity.timestampMs,
    resultDigest: `sha256:${createHash('sha256').update(canonicalJson(activity.result)).digest('hex')}`,
  });
}

function compressed(jwk: PublicKeyJwk): string {
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  return Buffer.concat([Buffer.from([y[y.length - 1]! & 1 ? 3 : 2]), x]).toString('hex');
}

/** Signs the activity's proof with the service's proof key (created on first use). */
export async function createAppProof(keys: ServiceKeys, activity: ProvenActivity): Promise<AppProof> {
  const key = await keys.get(PURPOSE);
  const proofPayload = proofPayloadFor(activity);
  const signature = sign('sha256', Buffer.from(proofPayload, 'utf8'), { key: key.privateKey, dsaEncoding: 'der' });
  return { scheme: APP_PROOF_SCHEME, publicKey: compressed(key.publicJwk), proofPayload, signature: signature.toString('hex') };
}

/** signing_keys.purpose of the proof keys. */
export const APP_PROOF_KEY = PURPOSE;

/** The proof keys this service signs with or signed with, as get_app_proof_keys lists them. */
export function appProofKeyList(keys: ReadonlyArray<{ publicJwk: PublicKeyJwk; createdAt: Date }>) {
  return keys.map((k) => ({ publicKey: compressed(k.publicJwk), scheme: APP_PROOF_SCHEME, createdAt: k.createdAt.toISOString() }));
}

/**
 * Everything wrong with an activity's proofs (empty when each one holds): the signature over the
 * payload, and the payload against the activity itself. `trustedKeys` (hex), when given, must
 * include the signing key.
 */
export function appProofProblems(activity: ProvenActivity, proofs: AppProof[], trustedKeys?: string[]): string[] {
  if (proofs.length === 0) return ['the activity carries no App Proofs'];
  const expected = proofPayloadFor(activity);
  const problems: string[] = [];
  proofs.forEach((proof, i) => {
    const at = `appProofs[${i}]`;
    if (proof.scheme !== APP_PROOF_SCHEME) problems.push(`${at}: unknown scheme ${proof.scheme}`);
    let valid = false;
    try {
      const key = createPublicKey({
        key: Buffer.concat([Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex'), Buffer.from(proof.publicKey, 'hex')]),
        format: 'der',
        type: 'spki',
      });
      valid = verify('sha256', Buffer.from(proof.proofPayload, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(proof.signature, 'hex'));
    } catch {
      valid = false;
    }
    if (!valid) problems.push(`${at}: the signature does not verify over proofPayload with publicKey`);
    if (proof.proofPayload !== expected) problems.push(`${at}: proofPayload does not match the activity (id, type, organization, fingerprint, timestampMs or result changed)`);
    if (trustedKeys && !trustedKeys.includes(proof.publicKey.toLowerCase())) problems.push(`${at}: signed by ${proof.publicKey}, not a trusted proof key`);
  });
  return problems;
}
