// The API-key stamp (keys/apiKeyStamp.ts): the user commands (userClient.ts) stamp their requests with
// it, and `signet stamp --key-file FILE < body.json` prints it for any other client (curl, a script in
// another language): X-Stamp is the base64url (unpadded) of the JSON {publicKey, scheme:
// "SIGNATURE_SCHEME_TK_API_P256", signature}, the signature a DER ECDSA P-256 / SHA-256 over the
// exact body bytes, in hex. docs/stamping.md shows the same done with openssl or Python.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { apiKeyStamp, p256PrivateKey } from '../keys/apiKeyStamp.ts';
import { compressedPublicKeyHex } from '../keys/p256.ts';
import { UsageError, type Input } from './command.ts';

/** The private key, checked against the public key the file names (the stamp carries that one). */
export function signingKey(credentials: { apiPublicKey: string; apiPrivateKey: string; file: string }): { key: KeyObject; publicKey: string } {
  let key: KeyObject;
  try {
    key = p256PrivateKey(Buffer.from(credentials.apiPrivateKey, 'hex'));
  } catch {
    throw new Error(`the credentials file ${credentials.file}: apiPrivateKey is not a P-256 private key`);
  }
  const publicKey = compressedPublicKeyHex(key);
  const given = credentials.apiPublicKey.toLowerCase();
  const givenCompressed = given.length === 66 ? given : `${Number.parseInt(given.slice(-2), 16) & 1 ? '03' : '02'}${given.slice(2, 66)}`;
  if (givenCompressed !== publicKey) {
    throw new Error(`the credentials file ${credentials.file}: apiPrivateKey is not the private key of apiPublicKey`);
  }
  return { key, publicKey: credentials.apiPublicKey };
}

export { apiKeyStamp };

/** Larger than any key file; a bigger one is not one. */
const MAX_KEY_FILE_BYTES = 64 * 1024;
/** The server refuses a larger body (1 MiB), so none is stamped. */
export const MAX_STAMPED_BODY_BYTES = 1024 * 1024;

/** The key of --key-file: a credentials file (JSON {apiPublicKey, apiPrivateKey, …}) or a PEM P-256 private key. */
function keyOfFile(file: string): { key: KeyObject; publicKey: string } {
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_KEY_FILE_BYTES) throw new Error(`larger than ${MAX_KEY_FILE_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--key-file: cannot read ${file}: ${(error as Error).message}`);
  }
  if (text.includes('-----BEGIN')) {
    let key: KeyObject;
    try {
      key = createPrivateKey(text);
    } catch (error) {
      throw new Error(`--key-file ${file}: not a PEM private key: ${(error as Error).message}`);
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error(`--key-file ${file}: the PEM key is not a P-256 (prime256v1) EC private key`);
    }
    return { key, publicKey: compressedPublicKeyHex(key) };
  }
  let fields: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`--key-file ${file} is neither JSON nor a PEM private key: ${(error as Error).message}`);
  }
  return signingKey({ ...keyPairOf(fields, `--key-file ${file}`), file });
}

/** The key pair of a credentials file's fields, each checked; an Error naming `where` and the field otherwise. */
export function keyPairOf(fields: Record<string, unknown>, where: string): { apiPublicKey: string; apiPrivateKey: string } {
  const { apiPublicKey, apiPrivateKey } = fields;
  if (typeof apiPublicKey !== 'string' || !/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(apiPublicKey)) {
    throw new Error(`${where}: apiPublicKey must be a P-256 public key in hex (66 characters, or 130 uncompressed)`);
  }
  if (typeof apiPrivateKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(apiPrivateKey)) {
    throw new Error(`${where}: apiPrivateKey must be a P-256 private key in hex (64 characters)`);
  }
  return { apiPublicKey, apiPrivateKey };
}

async function readBody(): Promise<Buffer> {
  if (process.stdin.isTTY) throw new UsageError('give the body on standard input: signet stamp --key-file FILE < body.json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STAMPED_BODY_BYTES) throw new Error(`the body on standard input is larger than ${MAX_STAMPED_BODY_BYTES} bytes, which the server refuses`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) throw new UsageError('the body on standard input is empty: signet stamp --key-file FILE < body.json');
  return Buffer.concat(chunks);
}

/** `signet stamp`: the X-Stamp header line (or, with --value, its value) for the bytes on standard input. */
export async function stampCommand(input: Input): Promise<number> {
  const { key, publicKey } = keyOfFile(input.need('key-file'));
  const stamp = apiKeyStamp(await readBody(), key, publicKey);
  process.stdout.write(input.on('value') ? `${stamp}\n` : `X-Stamp: ${stamp}\n`);
  return 0;
}
