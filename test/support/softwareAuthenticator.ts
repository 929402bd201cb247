// A software WebAuthn authenticator for tests: a passkey (ES256 by default; ES384, ES512, EdDSA or
// RS256 on request) that registers (attestation "none") and signs assertions byte for byte like a platform authenticator, and can drive the real
// @turnkey/webauthn-stamper through a stand-in for navigator.credentials.get.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { WebauthnStamper } from '@turnkey/webauthn-stamper';

export interface AssertionOverrides {
  /** clientDataJSON.origin (default: the authenticator's origin). */
  origin?: string;
  /** RP ID hashed into authenticatorData (default: the authenticator's RP ID). */
  rpId?: string;
  /** clientDataJSON.type (default "webauthn.get"). */
  type?: string;
  /** The UP flag (default true). */
  userPresent?: boolean;
  /** Signature counter to report instead of the next one. */
  counter?: number;
}

/** The four fields of a WebAuthn stamp, base64url; an ECDSA signature is DER. */
export interface Assertion {
  credentialId: string;
  authenticatorData: string;
  clientDataJson: string;
  signature: string;
}

export interface SoftwareAuthenticator {
  /** base64url credential ID. */
  credentialId: string;
  /** The COSE_Key registration reports, as a server stores it. */
  cosePublicKey: Uint8Array;
  rpId: string;
  origin: string;
  /** The counter the last assertion reported (it counts up by one per assertion, from 0). */
  readonly counter: number;
  /** A navigator.credentials.create() result for `challenge` (base64url), as PublicKeyCredential.toJSON() gives it. */
  register(challenge: string): RegistrationResponseJSON;
  /** A navigator.credentials.get() result for the challenge bytes. */
  assert(challenge: Uint8Array, overrides?: AssertionOverrides): Assertion;
}

/** The COSE algorithms a software authenticator can use, with the key and hash of each. */
export type SoftwareAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'RS256';

const ALGORITHMS = {
  ES256: { cose: -7, curve: 'prime256v1', coseCurve: 1, hash: 'sha256' },
  ES384: { cose: -35, curve: 'secp384r1', coseCurve: 2, hash: 'sha384' },
  ES512: { cose: -36, curve: 'secp521r1', coseCurve: 3, hash: 'sha512' },
  EdDSA: { cose: -8, curve: 'ed25519', coseCurve: 6, hash: null },
  // RSASSA-PKCS1-v1_5 with SHA-256 (Node's default padding for an RSA key), as Windows Hello signs.
  RS256: { cose: -257, curve: 'rsa', coseCurve: null, hash: 'sha256' },
} as const;

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export function createSoftwareAuthenticator(options: {
  rpId: string;
  origin: string;
  algorithm?: SoftwareAlgorithm;
}): SoftwareAuthenticator {
  const algorithm = ALGORITHMS[options.algorithm ?? 'ES256'];
  const { privateKey, publicKey } =
    algorithm.curve === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : algorithm.curve === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: algorithm.curve });
  const credentialIdBytes = randomBytes(32);
  const credentialId = credentialIdBytes.toString('base64url');
  const cosePublicKey = coseKey(publicKey, algorithm);
  let counter = 0;

  const authenticator: SoftwareAuthenticator = {
    credentialId,
    cosePublicKey: new Uint8Array(cosePublicKey),
    rpId: options.rpId,
    origin: options.origin,
    get counter() {
      return counter;
    },

    register(challenge) {
      const clientDataJSON = clientData('webauthn.create', challenge, options.origin);
      const authData = Buffer.concat([
        sha256(options.rpId),
        Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
        uint32(0),
        Buffer.alloc(16), // AAGUID: all zero, as authenticators without attestation report it
        uint16(credentialIdBytes.length),
        credentialIdBytes,
        cosePublicKey,
      ]);
      const attestationObject = cbor(
        new Map<CborValue, CborValue>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      );
      return {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: clientDataJSON.toString('base64url'),
          attestationObject: attestationObject.toString('base64url'),
          transports: ['internal', 'hybrid'],
        },
      };
    },

    assert(challenge, overrides = {}) {
      const reported = overrides.counter ?? ++counter;
      const flags = (overrides.userPresent === false ? 0 : FLAG_UP) | FLAG_UV;
      const authenticatorData = Buffer.concat([
        sha256(overrides.rpId ?? options.rpId),
        Buffer.from([flags]),
        uint32(reported),
      ]);
      const clientDataJSON = clientData(
        overrides.type ?? 'webauthn.get',
        Buffer.from(challenge).toString('base64url'),
        overrides.origin ?? options.origin,
      );
      // ECDSA signatures come out DER-encoded (Node's default), as authenticators send them.
      const signature = sign(algorithm.hash, Buffer.concat([authenticatorData, sha256(clientDataJSON)]), privateKey);
      return {
        credentialId,
        authenticatorData: authenticatorData.toString('base64url'),
        clientDataJson: clientDataJSON.toString('base64url'),
        signature: signature.toString('base64url'),
      };
    },
  };
  return authenticator;
}

/** The ecosystem's v1Attestation transport names, as @turnkey/http maps the W3C values. */
const V1_TRANSPORTS: Record<string, string> = {
  internal: 'AUTHENTICATOR_TRANSPORT_INTERNAL',
  usb: 'AUTHENTICATOR_TRANSPORT_USB',
  nfc: 'AUTHENTICATOR_TRANSPORT_NFC',
  ble: 'AUTHENTICATOR_TRANSPORT_BLE',
  hybrid: 'AUTHENTICATOR_TRANSPORT_HYBRID',
};

/**
 * A registration in the shape @turnkey/http's getWebAuthnAttestation() returns (and so sdk-browser's
 * createUserPasskey): its toInternalAttestation() applied to the W3C JSON.
 */
export function v1Attestation(response: RegistrationResponseJSON): {
  credentialId: string;
  clientDataJson: string;
  attestationObject: string;
  transports: string[];
} {
  return {
    credentialId: response.rawId,
    attestationObject: response.response.attestationObject,
    clientDataJson: response.response.clientDataJSON,
    transports: (response.response.transports ?? []).map((transport) => {
      const name = V1_TRANSPORTS[transport];
      if (!name) throw new Error('unsupported transport format'); // as the library throws
      return name;
    }),
  };
}

// --- the real WebauthnStamper, run in Node -------------------------------------------------------

// Authenticators a stand-in navigator can pick from, by credential ID, as a browser picks among passkeys.
const known = new Map<string, SoftwareAuthenticator>();
let activeStamps = 0;
let savedNavigator: PropertyDescriptor | undefined;

/**
 * A @turnkey/webauthn-stamper WebauthnStamper whose navigator.credentials.get() is answered by
 * `authenticator`. The stand-in navigator is installed only while a stamp is being made. The stamper
 * asks for `rpId`, which lands in authenticatorData as a real authenticator would put it there.
 */
export function webauthnStamperFor(
  authenticator: SoftwareAuthenticator,
  rpId: string = authenticator.rpId,
): { stamp(payload: string): Promise<{ stampHeaderName: string; stampHeaderValue: string }> } {
  known.set(authenticator.credentialId, authenticator);
  const stamper = new WebauthnStamper({
    rpId,
    allowCredentials: [{ type: 'public-key', id: new Uint8Array(Buffer.from(authenticator.credentialId, 'base64url')) }],
  });
  return {
    async stamp(payload) {
      installNavigator();
      try {
        return await stamper.stamp(payload);
      } finally {
        uninstallNavigator();
      }
    },
  };
}

interface GetOptions {
  publicKey: { rpId: string; challenge: Uint8Array; allowCredentials?: { id: Uint8Array }[] };
}

function installNavigator(): void {
  if (activeStamps++ > 0) return;
  savedNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', {
    configurable: true,
    value: { credentials: { get: getCredential } },
  });
}

function uninstallNavigator(): void {
  if (--activeStamps > 0) return;
  if (savedNavigator) Object.defineProperty(globalThis, 'navigator', savedNavigator);
  else delete (globalThis as { navigator?: unknown }).navigator;
}

/** What a browser's navigator.credentials.get() resolves to: a PublicKeyCredential with ArrayBuffers. */
async function getCredential({ publicKey }: GetOptions) {
  const allowed = (publicKey.allowCredentials ?? []).map((c) => Buffer.from(c.id).toString('base64url'));
  const authenticator = allowed.map((id) => known.get(id)).find((a) => a !== undefined);
  if (!authenticator) throw new Error('NotAllowedError: no software authenticator for allowCredentials');
  const assertion = authenticator.assert(publicKey.challenge, { rpId: publicKey.rpId });
  const buffer = (base64url: string) => new Uint8Array(Buffer.from(base64url, 'base64url')).buffer;
  return {
    type: 'public-key',
    id: assertion.credentialId,
    rawId: buffer(assertion.credentialId),
    authenticatorAttachment: 'platform',
    response: {
      clientDataJSON: buffer(assertion.clientDataJson),
      authenticatorData: buffer(assertion.authenticatorData),
      signature: buffer(assertion.signature),
      userHandle: null,
    },
    getClientExtensionResults: () => ({}),
  };
}

// --- encodings ------------------------------------------------------------------------------------

function clientData(type: string, challenge: string, origin: string): Buffer {
  // Member order as browsers write it.
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
}

function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function uint16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

/**
 * The COSE_Key of the public key: for ES256 {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y};
 * for EdDSA {1: 1 (OKP), 3: -8 (EdDSA), -1: 6 (Ed25519), -2: x}; for RS256 {1: 3 (RSA), 3: -257, -1: n, -2: e}.
 */
function coseKey(publicKey: KeyObject, algorithm: (typeof ALGORITHMS)[SoftwareAlgorithm]): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (algorithm.coseCurve === null) {
    return cbor(
      new Map<CborValue, CborValue>([
        [1, 3],
        [3, algorithm.cose],
        [-1, Buffer.from(jwk.n!, 'base64url')],
        [-2, Buffer.from(jwk.e!, 'base64url')],
      ]),
    );
  }
  if (algorithm.hash === null) {
    return cbor(
      new Map<CborValue, CborValue>([
        [1, 1],
        [3, algorithm.cose],
        [-1, algorithm.coseCurve],
        [-2, Buffer.from(jwk.x!, 'base64url')],
      ]),
    );
  }
  return cbor(
    new Map<CborValue, CborValue>([
      [1, 2],
      [3, algorithm.cose],
      [-1, algorithm.coseCurve],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

type CborValue = number | string | Uint8Array | Map<CborValue, CborValue>;

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys: ints, bytes, text, maps. */
function cbor(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`cbor: ${value} is not an integer`);
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

/** A major type and its argument in the shortest form, as deterministic CBOR requires. */
function head(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) return Buffer.concat([Buffer.from([type | 25]), uint16(argument)]);
  if (argument < 0x100000000) return Buffer.concat([Buffer.from([type | 26]), uint32(argument)]);
  throw new Error(`cbor: argument ${argument} too large`);
}
