// App Proofs (the optional generateAppProofs flag): a statement binding an activity's id,
// type, organization, fingerprint, timestampMs and result, signed with the service's P-256 proof
// key in the encoding of @turnkey/crypto's verifyAppProofSignature, so anyone holding the activity
// can check offline that this service produced that result.
import { createHash, sign, verify } from 'node:crypto';
import { p256PointHex, parseP256PublicKey, uncompressedPublicKeyHex } from '../../keys/p256.ts';
import type { PublicKeyJwk } from '../../store/signingKeys.ts';
import { SERVICE_KEYS, type ServiceKeys } from './serviceKeys.ts';

export const APP_PROOF_SCHEME = 'SIGNATURE_SCHEME_EPHEMERAL_KEY_P256';
/** proofPayload's type: the ecosystem names each kind of proof APP_PROOF_TYPE_…; this one proves an activity's result. */
export const APP_PROOF_TYPE = 'APP_PROOF_TYPE_ACTIVITY_RESULT';
const PURPOSE = SERVICE_KEYS.appProof.purpose;

export interface AppProof {
  scheme: typeof APP_PROOF_SCHEME;
  /**
   * 260 hex: two uncompressed P-256 points, the hosted enclave's encryption key then its signing
   * key. Signet has no encryption key, so both halves are the proof key (a real point, the same
   * in both places; appProofProblems requires that).
   */
  publicKey: string;
  /** JSON of the statement; the signature is over its UTF-8 bytes (ECDSA P-256 with SHA-256). */
  proofPayload: string;
  /** Raw r‖s ECDSA signature, hex (128 characters). */
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

function resultDigest(activity: ProvenActivity): string {
  return `sha256:${createHash('sha256').update(canonicalJson(activity.result)).digest('hex')}`;
}

/**
 * The statement an activity's proof signs, shaped like the hosted service's payloads ({type,
 * timestampMs, <kind>Proof: {…}}). timestampMs is the activity's own, not the signing time: the
 * payload is then a function of the activity alone, so a verifier rebuilds it byte for byte from
 * a saved activity, and the pipeline has already checked it lies within the liveness window.
 */
export function proofPayloadFor(activity: ProvenActivity): string {
  return JSON.stringify({
    type: APP_PROOF_TYPE,
    timestampMs: activity.timestampMs,
    activityResultProof: {
      activityId: activity.id,
      activityType: activity.type,
      organizationId: activity.organizationId,
      fingerprint: activity.fingerprint,
      resultDigest: resultDigest(activity),
    },
  });
}

/** The payload of proofs made before the ecosystem encoding (compressed key, DER signature), still stored with old activities. */
function earlierProofPayloadFor(activity: ProvenActivity): string {
  return JSON.stringify({
    activityId: activity.id,
    activityType: activity.type,
    organizationId: activity.organizationId,
    fingerprint: activity.fingerprint,
    timestampMs: activity.timestampMs,
    resultDigest: resultDigest(activity),
  });
}

/** A proof's publicKey for a proof key: its uncompressed point twice (see AppProof.publicKey). */
function proofPublicKey(jwk: PublicKeyJwk): string {
  const point = uncompressedPublicKeyHex(jwk);
  return point + point;
}

/** Signs the activity's proof with the service's proof key (created on first use). */
export async function createAppProof(keys: ServiceKeys, activity: ProvenActivity): Promise<AppProof> {
  const key = await keys.get(PURPOSE);
  const proofPayload = proofPayloadFor(activity);
  const signature = sign('sha256', Buffer.from(proofPayload, 'utf8'), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return { scheme: APP_PROOF_SCHEME, publicKey: proofPublicKey(key.publicJwk), proofPayload, signature: signature.toString('hex') };
}

/** signing_keys.purpose of the proof keys. */
export const APP_PROOF_KEY = PURPOSE;

/** The proof keys this service signs with or signed with, as get_app_proof_keys lists them: each publicKey is the string its proofs carry. */
export function appProofKeyList(keys: ReadonlyArray<{ publicJwk: PublicKeyJwk; createdAt: Date }>) {
  return keys.map((k) => ({ publicKey: proofPublicKey(k.publicJwk), scheme: APP_PROOF_SCHEME, createdAt: k.createdAt.toISOString() }));
}

/**
 * The signing key a proof key is named by, compressed hex: from a proof's publicKey (260 hex, the
 * signing key is the second half), or a plain P-256 key in either SEC1 form. Undefined otherwise.
 */
function signingKeyOf(hex: string): string | undefined {
  if (typeof hex !== 'string') return undefined;
  return p256PointHex(hex.length === 260 ? hex.slice(130) : hex)?.compressed;
}

/**
 * Everything wrong with an activity's proofs (empty when each one holds): the encoding, the
 * signature over the payload, and the payload against the activity itself. `trustedKeys` (hex),
 * when given, must name the signing key: as get_app_proof_keys lists it (the proofs' publicKey),
 * or the signing key alone, compressed or uncompressed. Proofs in the earlier encoding (compressed
 * publicKey, DER signature, payload without type) still verify, so saved activities stay checkable.
 */
export function appProofProblems(activity: ProvenActivity, proofs: AppProof[], trustedKeys?: string[]): string[] {
  if (proofs.length === 0) return ['the activity carries no App Proofs'];
  const trusted = trustedKeys?.map((k) => signingKeyOf(k) ?? k.toLowerCase());
  const problems: string[] = [];
  proofs.forEach((proof, i) => {
    const at = `appProofs[${i}]`;
    if (proof.scheme !== APP_PROOF_SCHEME) problems.push(`${at}: unknown scheme ${proof.scheme}`);
    const publicKey = typeof proof.publicKey === 'string' ? proof.publicKey.toLowerCase() : '';
    const earlier = /^0[23][0-9a-f]{64}$/.test(publicKey);
    let signingKey: string | undefined;
    if (earlier) {
      signingKey = p256PointHex(publicKey)?.compressed;
    } else if (/^04[0-9a-f]{128}04[0-9a-f]{128}$/.test(publicKey) && publicKey.slice(0, 130) === publicKey.slice(130)) {
      signingKey = p256PointHex(publicKey.slice(130))?.compressed;
    }
    if (signingKey === undefined) {
      problems.push(`${at}: publicKey must be 260 hex characters, the uncompressed P-256 proof key twice`);
    } else {
      let valid = false;
      try {
        valid = verify(
          'sha256',
          Buffer.from(proof.proofPayload, 'utf8'),
          { key: parseP256PublicKey(signingKey).key, dsaEncoding: earlier ? 'der' : 'ieee-p1363' },
          Buffer.from(proof.signature, 'hex'),
        );
      } catch {
        valid = false;
      }
      if (!earlier && !/^[0-9a-fA-F]{128}$/.test(proof.signature)) valid = false;
      if (!valid) problems.push(`${at}: the signature does not verify over proofPayload with publicKey`);
    }
    const expected = earlier ? earlierProofPayloadFor(activity) : proofPayloadFor(activity);
    if (proof.proofPayload !== expected) problems.push(`${at}: proofPayload does not match the activity (id, type, organization, fingerprint, timestampMs or result changed)`);
    if (trusted && !(signingKey !== undefined && trusted.includes(signingKey))) problems.push(`${at}: signed by ${proof.publicKey}, not a trusted proof key`);
  });
  return problems;
}
