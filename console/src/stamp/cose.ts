// A passkey's public key as Signet reports it (the hex of the COSE_Key its registration returned),
// turned into a WebCrypto verifying key. Only what COSE EC2 and RSA keys need is decoded: a CBOR map
// of integer labels to integers and byte strings. ECDSA keys on P-256, P-384 and P-521 and RSA keys
// for RS256, RS384 and RS512 (RSASSA-PKCS1-v1_5, what Windows Hello passkeys use) are supported;
// anything else (an EdDSA passkey) is reported as such.

import { base64url } from './stamper.ts';

type CoseValue = number | Uint8Array;

/** A verifying key, the algorithm to verify with, and how its signatures are encoded. */
export interface CoseVerifier {
  key: CryptoKey;
  algorithm: EcdsaParams | AlgorithmIdentifier;
  /** ECDSA: bytes of one of r and s in WebCrypto's r||s signature (the passkey's is DER). Absent for RSA, whose signature is used as it is. */
  size?: number;
}

// COSE labels (RFC 9053): kty 1, alg 3, crv -1, x -2, y -3; kty EC2 = 2.
const EC2_CURVES = new Map([
  [1, { namedCurve: 'P-256', hash: 'SHA-256', size: 32 }],
  [2, { namedCurve: 'P-384', hash: 'SHA-384', size: 48 }],
  [3, { namedCurve: 'P-521', hash: 'SHA-512', size: 66 }],
] as const);

// COSE RSA (RFC 8230): kty 3, n -1, e -2; alg RS256 -257, RS384 -258, RS512 -259.
const RSA_HASHES = new Map([
  [-257, 'SHA-256'],
  [-258, 'SHA-384'],
  [-259, 'SHA-512'],
] as const);

/** The key of a COSE_Key; throws, saying why, when it is not a key this page can verify with. */
export async function importCoseKey(cose: Uint8Array): Promise<CoseVerifier> {
  const map = decodeCoseMap(cose);
  if (map.get(1) === 3) return importRsaKey(map);
  if (map.get(1) !== 2) throw new Error(`the passkey's key is neither an ECDSA (COSE EC2) nor an RSA key (kty ${String(map.get(1))}), which this page does not check`);
  const curve = EC2_CURVES.get(map.get(-1) as 1 | 2 | 3);
  const x = map.get(-2);
  const y = map.get(-3);
  if (!curve || !(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== curve.size || y.length !== curve.size) {
    throw new Error('the passkey\'s COSE key is not an ECDSA key on P-256, P-384 or P-521');
  }
  const point = new Uint8Array(1 + 2 * curve.size);
  point[0] = 4;
  point.set(x, 1);
  point.set(y, 1 + curve.size);
  const key = await crypto.subtle.importKey('raw', point, { name: 'ECDSA', namedCurve: curve.namedCurve }, false, ['verify']);
  return { key, algorithm: { name: 'ECDSA', hash: curve.hash }, size: curve.size };
}

async function importRsaKey(map: Map<number, CoseValue>): Promise<CoseVerifier> {
  const hash = RSA_HASHES.get(map.get(3) as -257 | -258 | -259);
  const n = map.get(-1);
  const e = map.get(-2);
  if (!hash) throw new Error(`the passkey's RSA key is for COSE algorithm ${String(map.get(3))}, not RS256, RS384 or RS512, which this page does not check`);
  if (!(n instanceof Uint8Array) || !(e instanceof Uint8Array)) throw new Error("the passkey's COSE RSA key lacks its modulus or exponent");
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash };
  const key = await crypto.subtle.importKey('jwk', { kty: 'RSA', n: base64url(n), e: base64url(e), ext: true }, algorithm, false, ['verify']);
  return { key, algorithm };
}

/** A CBOR map of integer labels (the whole input), its values integers or byte strings. */
function decodeCoseMap(bytes: Uint8Array): Map<number, CoseValue> {
  let offset = 0;
  const fail = (why: string): never => {
    throw new Error(`the passkey's public key is not a COSE key: ${why}`);
  };
  const head = (): { major: number; value: number } => {
    const initial = bytes[offset++];
    if (initial === undefined) return fail('truncated');
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (info < 24) return { major, value: info };
    const length = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : fail('unsupported length');
    if (offset + length > bytes.length) fail('truncated');
    let value = 0;
    for (let i = 0; i < length; i++) value = value * 256 + bytes[offset++]!;
    return { major, value };
  };
  const item = (): CoseValue => {
    const { major, value } = head();
    if (major === 0) return value;
    if (major === 1) return -1 - value;
    if (major === 2 || major === 3) {
      if (offset + value > bytes.length) fail('truncated');
      const data = bytes.slice(offset, offset + value);
      offset += value;
      return data;
    }
    return fail(`unexpected CBOR major type ${major}`);
  };
  const { major, value: entries } = head();
  if (major !== 5 || entries > 16) fail('not a small CBOR map');
  const map = new Map<number, CoseValue>();
  for (let i = 0; i < entries; i++) {
    const label = item();
    if (typeof label !== 'number') fail('a label is not an integer');
    map.set(label as number, item());
  }
  if (offset !== bytes.length) fail('trailing bytes');
  return map;
}
