// The key-encryption key held in an HSM, reached through PKCS#11 (SIGNET_PKCS11_*): an AES-256 key the
// operator made with the token's own tools, sensitive and not extractable, that never leaves the
// token. A data key is wrapped in the token with AES-GCM (a random 96-bit IV each time, the KEK's id
// as associated data): `wrapped` is IV ‖ ciphertext ‖ tag, the layout of the deployment-secret KEK.
// With SIGNET_PKCS11_PREVIOUS_KEY_LABEL, the key it replaces is found in the same session and
// checked the same way; it only opens (`previous`), until `signet keys rewrap` has re-sealed its values.
//
// One session, logged in once and reused; calls on it are serialised (PKCS#11 sessions are not to be
// used by two operations at once). When the token drops the session (a restart of the token or of
// its daemon), the next call opens a new one, logs in again and checks that the key found is the
// same key (its check value), then retries once. The binding, pkcs11js, is an optional dependency
// loaded only here, when SIGNET_PKCS11_MODULE is set. A process holds one such KEK: it initializes
// the library and finalizes it on close (or to recover from a token restart).
//
// Start-up problems are ConfigErrors naming the setting at fault (`signet serve` exits with 2); the
// PIN is never part of a message. Failures of wrap and unwrap are KeyMaterialUnreadable.
import { randomBytes } from 'node:crypto';
import { ConfigError, type Pkcs11Settings } from '../config.ts';
import { KEK_ID, KeyMaterialUnreadable, type KeyEncryptionKey, type WrappedDataKey } from '../keys/custody/keyEncryptionKey.ts';

type Handle = Buffer;

/**
 * The part of pkcs11js this file uses, declared here so that Signet compiles where the optional
 * binding is not installed (its own declarations say the same).
 */
export interface Pkcs11 {
  load(path: string): void;
  C_Initialize(): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent?: boolean): Handle[];
  C_GetTokenInfo(slot: Handle): { label: string };
  C_OpenSession(slot: Handle, flags: number): Handle;
  C_CloseSession(session: Handle): void;
  C_CloseAllSessions(slot: Handle): void;
  C_Login(session: Handle, userType: number, pin?: string): void;
  C_Logout(session: Handle): void;
  C_FindObjectsInit(session: Handle, template: Array<{ type: number; value?: number | string | boolean | Buffer }>): void;
  C_FindObjects(session: Handle, maxObjectCount: number): Handle[];
  C_FindObjectsFinal(session: Handle): void;
  C_GetAttributeValue(session: Handle, object: Handle, template: Array<{ type: number }>): Array<{ type: number; value?: unknown }>;
  C_EncryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_EncryptAsync(session: Handle, inData: Buffer, outData: Buffer): Promise<Buffer>;
  C_DecryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_DecryptAsync(session: Handle, inData: Buffer, outData: Buffer): Promise<Buffer>;
}
interface Mechanism {
  mechanism: number;
  parameter: { type: number; iv: Buffer; aad: Buffer; ivBits: number; tagBits: number };
}
export interface Binding {
  PKCS11: new () => Pkcs11;
  CKF_SERIAL_SESSION: number;
  CKU_USER: number;
  CKA_CLASS: number;
  CKA_LABEL: number;
  CKA_KEY_TYPE: number;
  CKA_VALUE_LEN: number;
  CKA_EXTRACTABLE: number;
  CKA_SENSITIVE: number;
  CKA_ENCRYPT: number;
  CKA_DECRYPT: number;
  CKO_SECRET_KEY: number;
  CKK_AES: number;
  CKM_AES_GCM: number;
  CK_PARAMS_AES_GCM: number;
}

/** The optional binding's name, held in a variable so that the compiler does not look for it. */
const BINDING: string = 'pkcs11js';
/** A logged-in session and the key's handle in it (and the previous key's, with SIGNET_PKCS11_PREVIOUS_KEY_LABEL). */
interface Connection {
  session: Handle;
  key: Handle;
  previous?: Handle;
}

const DATA_KEY = 32;
const IV = 12;
const TAG = 16;
/** The check value: a zero block encrypted under the key with a fixed IV and associated data, which no wrap uses (its IVs are random). */
const CHECK_IV = Buffer.alloc(IV);
const CHECK_AAD = Buffer.from('signet pkcs11 key check value v1');
const CHECK_HEX = 12;

/**
 * A key-encryption key that holds a resource (a session in a token) until closed; with a previous key
 * label, that key too (on the same session), which only opens: values sealed under it open until
 * `signet keys rewrap` has re-sealed them.
 */
export interface ClosableKek extends KeyEncryptionKey {
  previous?: KeyEncryptionKey;
  close(): Promise<void>;
}

/** What the binding reports: a PKCS#11 return value's name (CKR_PIN_INCORRECT), never anything given to it. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const name = /CKR_[A-Z0-9_]+/.exec(message)?.[0];
  return name ?? (message.split('\n')[0] ?? 'unknown error').slice(0, 200);
}

/** A CK_ULONG attribute (4 or 8 bytes, the machine's order: little-endian where Signet runs). */
function ulong(value: Buffer): number {
  let result = 0;
  for (let index = value.length - 1; index >= 0; index--) result = result * 256 + value[index]!;
  return result;
}

/** Errors after which a new session (and login) may succeed: the token or its daemon restarted. */
const SESSION_LOST = /CKR_(SESSION_HANDLE_INVALID|SESSION_CLOSED|USER_NOT_LOGGED_IN|DEVICE_REMOVED|TOKEN_NOT_PRESENT|DEVICE_ERROR|CRYPTOKI_NOT_INITIALIZED)/;

/** The binding, or a start-up error saying it is missing. */
async function loadBinding(): Promise<Binding> {
  try {
    const loaded = (await import(BINDING)) as Binding & { default?: Binding };
    return loaded.default ?? loaded;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new ConfigError(
        'SIGNET_PKCS11_MODULE is set but the PKCS#11 binding (pkcs11js) is not installed: it is an optional dependency built by node-gyp (it needs g++, make and python3); run `npm install pkcs11js`, or unset the SIGNET_PKCS11_* settings',
      );
    }
    throw new ConfigError(`SIGNET_PKCS11_MODULE is set but the PKCS#11 binding (pkcs11js) does not load: ${reason(error)}; rebuild it with \`npm rebuild pkcs11js\``);
  }
}

/** Opens the KEK of the settings: the module, the token, a logged-in session, the key; checked by a wrap and unwrap. */
export async function openPkcs11Kek(settings: Pkcs11Settings, binding?: Binding): Promise<ClosableKek> {
  const p11 = binding ?? (await loadBinding());
  const pkcs11: Pkcs11 = new p11.PKCS11();
  try {
    pkcs11.load(settings.module);
  } catch (error) {
    throw new ConfigError(`SIGNET_PKCS11_MODULE: cannot load the PKCS#11 library ${settings.module}: ${reason(error)}`);
  }
  try {
    pkcs11.C_Initialize();
  } catch (error) {
    if (!/CKR_CRYPTOKI_ALREADY_INITIALIZED/.test(reason(error))) {
      throw new ConfigError(`SIGNET_PKCS11_MODULE: the PKCS#11 library ${settings.module} does not initialize: ${reason(error)}`);
    }
  }
  let session: Handle | undefined;
  const finalize = () => {
    if (session) {
      try {
        pkcs11.C_CloseSession(session);
      } catch {
        // already gone with the token
      }
    }
    session = undefined;
    try {
      pkcs11.C_Finalize();
    } catch {
      // nothing left to release
    }
  };

  /** A logged-in session of the token, and the key's handle in it, checked. */
  const connect = (): Connection => {
    const slots = pkcs11.C_GetSlotList(true);
    const matching = slots.filter((slot) => pkcs11.C_GetTokenInfo(slot).label.trimEnd() === settings.tokenLabel);
    if (matching.length === 0) throw new ConfigError(`SIGNET_PKCS11_TOKEN_LABEL: no token labelled "${settings.tokenLabel}" in ${settings.module}`);
    if (matching.length > 1) throw new ConfigError(`SIGNET_PKCS11_TOKEN_LABEL: ${matching.length} tokens are labelled "${settings.tokenLabel}"; give the token a label of its own`);
    const opened = pkcs11.C_OpenSession(matching[0]!, p11.CKF_SERIAL_SESSION);
    session = opened;
    try {
      pkcs11.C_Login(opened, p11.CKU_USER, settings.pin);
    } catch (error) {
      const why = reason(error);
      if (!/CKR_USER_ALREADY_LOGGED_IN/.test(why)) {
        throw new ConfigError(`SIGNET_PKCS11_PIN: cannot log in to the token "${settings.tokenLabel}": ${why}${/PIN_INCORRECT/.test(why) ? ' (wrong PIN)' : ''}`);
      }
    }
    const key = findKey(opened, settings.keyLabel, 'SIGNET_PKCS11_KEY_LABEL');
    const previous = settings.previousKeyLabel === undefined ? undefined : findKey(opened, settings.previousKeyLabel, 'SIGNET_PKCS11_PREVIOUS_KEY_LABEL');
    return { session: opened, key, ...(previous ? { previous } : {}) };
  };

  /** The one secret key of this label in the session's token, checked to be fit for wrapping data keys; a ConfigError naming `setting` otherwise. */
  function findKey(opened: Handle, label: string, setting: string): Handle {
    pkcs11.C_FindObjectsInit(opened, [
      { type: p11.CKA_CLASS, value: p11.CKO_SECRET_KEY },
      { type: p11.CKA_LABEL, value: label },
    ]);
    let keys: Handle[];
    try {
      keys = pkcs11.C_FindObjects(opened, 3);
    } finally {
      pkcs11.C_FindObjectsFinal(opened);
    }
    if (keys.length === 0) throw new ConfigError(`${setting}: no secret key labelled "${label}" in the token "${settings.tokenLabel}"; make it with the token's tools (docs/operations.md)`);
    if (keys.length > 1) throw new ConfigError(`${setting}: several secret keys are labelled "${label}" in the token "${settings.tokenLabel}"; exactly one must be`);
    const key = keys[0]!;
    const [type, length, extractable, sensitive, encrypt, decrypt] = pkcs11.C_GetAttributeValue(opened, key, [
      { type: p11.CKA_KEY_TYPE },
      { type: p11.CKA_VALUE_LEN },
      { type: p11.CKA_EXTRACTABLE },
      { type: p11.CKA_SENSITIVE },
      { type: p11.CKA_ENCRYPT },
      { type: p11.CKA_DECRYPT },
    ]).map((attribute) => attribute.value as Buffer);
    const named = `${setting}: the key "${label}"`;
    if (ulong(type!) !== p11.CKK_AES) throw new ConfigError(`${named} is not an AES key (CKA_KEY_TYPE)`);
    if (ulong(length!) !== 32) throw new ConfigError(`${named} is not 256 bits long (CKA_VALUE_LEN ${ulong(length!)} bytes, not 32)`);
    if (extractable![0] !== 0) throw new ConfigError(`${named} is extractable (CKA_EXTRACTABLE): make one that is not, so it never leaves the token`);
    if (sensitive![0] === 0) throw new ConfigError(`${named} is not sensitive (CKA_SENSITIVE): make one that is, so its value is never revealed`);
    if (encrypt![0] === 0 || decrypt![0] === 0) throw new ConfigError(`${named} may not ${encrypt![0] === 0 ? 'encrypt (CKA_ENCRYPT)' : 'decrypt (CKA_DECRYPT)'}, which wrapping data keys needs`);
    return key;
  }

  const gcm = (iv: Buffer, aad: Buffer) => ({ mechanism: p11.CKM_AES_GCM, parameter: { type: p11.CK_PARAMS_AES_GCM, iv, aad, ivBits: IV * 8, tagBits: TAG * 8 } });
  // The operations themselves run off the event loop (a network HSM answers in milliseconds).
  const encrypt = async (session: Handle, key: Handle, iv: Buffer, aad: Buffer, data: Buffer): Promise<Buffer> => {
    pkcs11.C_EncryptInit(session, gcm(iv, aad), key);
    return pkcs11.C_EncryptAsync(session, data, Buffer.alloc(data.length + TAG));
  };
  const decrypt = async (session: Handle, key: Handle, iv: Buffer, aad: Buffer, data: Buffer): Promise<Buffer> => {
    pkcs11.C_DecryptInit(session, gcm(iv, aad), key);
    // The answer is a view of the output buffer, not a copy: the caller zeroes the one data key.
    return pkcs11.C_DecryptAsync(session, data, Buffer.alloc(data.length));
  };
  const checkValue = async (session: Handle, key: Handle) => (await encrypt(session, key, CHECK_IV, CHECK_AAD, Buffer.alloc(16))).toString('hex').slice(0, CHECK_HEX);
  /** The ids of the key and of the previous one, each naming its check value. */
  const idsOf = async (at: Connection) => ({
    key: `pkcs11:${settings.tokenLabel}:${settings.keyLabel}:${await checkValue(at.session, at.key)}`,
    previous: at.previous === undefined ? undefined : `pkcs11:${settings.tokenLabel}:${settings.previousKeyLabel}:${await checkValue(at.session, at.previous)}`,
  });

  let current: Connection;
  let id: string;
  let previousId: string | undefined;
  try {
    current = connect();
    ({ key: id, previous: previousId } = await idsOf(current));
  } catch (error) {
    finalize();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`SIGNET_PKCS11_KEY_LABEL: the key "${settings.keyLabel}" of the token "${settings.tokenLabel}" cannot be used: ${reason(error)}`);
  }
  if (!KEK_ID.test(id) || (previousId !== undefined && !KEK_ID.test(previousId))) {
    finalize();
    throw new ConfigError('SIGNET_PKCS11_TOKEN_LABEL and SIGNET_PKCS11_KEY_LABEL are letters, digits, "_" and "-", at most 43 characters together (the key-encryption key\'s id names both)');
  }
  if (previousId === id) {
    finalize();
    throw new ConfigError(`SIGNET_PKCS11_PREVIOUS_KEY_LABEL: the key "${settings.previousKeyLabel}" is the same key as "${settings.keyLabel}" (the same check value)`);
  }

  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();
  /** Runs `operation` on the session, after those before it; once again on a new session when the token dropped it. */
  const serialised = <T>(operation: (at: Connection) => Promise<T>): Promise<T> => {
    const run = async () => {
      if (closed) throw new Error(`key-encryption key ${id} is closed`);
      try {
        return await operation(current);
      } catch (error) {
        if (!SESSION_LOST.test(reason(error))) throw error;
        finalize();
        pkcs11.C_Initialize();
        current = connect();
        const now = await idsOf(current);
        if (now.key !== id || now.previous !== previousId) throw new Error(`the keys labelled "${settings.keyLabel}"${previousId ? ` and "${settings.previousKeyLabel}"` : ''} are other keys than ${[id, previousId].filter(Boolean).join(' and ')} now`);
        return await operation(current);
      }
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  /** Unwrapping with the key `pick` chooses, whose id is `keyId`. */
  const unwrapper =
    (keyId: string, pick: (at: Connection) => Handle) =>
    async ({ kekId, wrapped }: WrappedDataKey): Promise<Uint8Array> => {
      if (kekId !== keyId) throw new KeyMaterialUnreadable('other_kek', `sealed under key-encryption key ${kekId}, not ${keyId}`);
      if (wrapped.length !== IV + DATA_KEY + TAG) throw new KeyMaterialUnreadable('format', 'the wrapped data key has the wrong length');
      const bytes = Buffer.from(wrapped);
      try {
        return await serialised((at) => decrypt(at.session, pick(at), bytes.subarray(0, IV), Buffer.from(keyId), bytes.subarray(IV)));
      } catch (error) {
        const why = reason(error);
        if (/CKR_(ENCRYPTED_DATA_INVALID|ENCRYPTED_DATA_LEN_RANGE)/.test(why)) {
          throw new KeyMaterialUnreadable('unwrap_failed', `key-encryption key ${keyId} does not open this data key`);
        }
        throw new KeyMaterialUnreadable('unwrap_failed', `key-encryption key ${keyId} cannot unwrap a data key: ${why}`);
      }
    };

  // The previous key only opens: nothing new is sealed under it.
  const previous: KeyEncryptionKey | undefined =
    previousId === undefined
      ? undefined
      : {
          id: previousId,
          wrap: async () => {
            throw new KeyMaterialUnreadable('unwrap_failed', `key-encryption key ${previousId} is the previous key: it only opens`);
          },
          unwrap: unwrapper(previousId, (at) => at.previous!),
        };

  const kek: ClosableKek = {
    id,
    ...(previous ? { previous } : {}),
    async wrap(dataKey: Uint8Array): Promise<WrappedDataKey> {
      if (dataKey.length !== DATA_KEY) throw new RangeError('a data key has 32 bytes');
      const iv = randomBytes(IV);
      const plain = Buffer.from(dataKey);
      try {
        const sealed = await serialised((at) => encrypt(at.session, at.key, iv, Buffer.from(id), plain));
        return { kekId: id, wrapped: Buffer.concat([iv, sealed]) };
      } catch (error) {
        throw new KeyMaterialUnreadable('unwrap_failed', `key-encryption key ${id} cannot wrap a data key: ${reason(error)}`);
      } finally {
        plain.fill(0);
      }
    },
    unwrap: unwrapper(id, (at) => at.key),
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      try {
        pkcs11.C_Logout(current.session);
      } catch {
        // the session may be gone already
      }
      finalize();
    },
  };

  // The start-up check: a data key goes through the token and back.
  const probe = randomBytes(DATA_KEY);
  try {
    const opened = await kek.unwrap(await kek.wrap(probe));
    const back = Buffer.from(opened.buffer, opened.byteOffset, opened.byteLength); // a view, zeroed below
    const same = back.equals(probe);
    back.fill(0);
    if (!same) throw new Error('the data key came back different');
  } catch (error) {
    await kek.close();
    throw new ConfigError(`SIGNET_PKCS11_KEY_LABEL: wrapping a data key with the key "${settings.keyLabel}" of the token "${settings.tokenLabel}" and back failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    probe.fill(0);
  }
  return kek;
}
