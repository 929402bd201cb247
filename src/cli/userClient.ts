// How the user commands (policy, quorum, activity) reach a running server: as a user of an
// organization, through the public API at SIGNET_URL, each request stamped with that user's API key
// like any client's (X-Stamp: base64url JSON {publicKey, scheme, signature}, the signature a DER
// ECDSA P-256 / SHA-256 over the exact body bytes). The organization's authorization decides what
// they may do, as it does for every client. The key comes from a credentials file: --credentials
// FILE, else SIGNET_CREDENTIALS, else the development credentials the server wrote into
// SIGNET_DATA_DIR; `signet org create --json` prints a file of the same shape.
import fs from 'node:fs';
import { devCredentialsPath } from '../admin/devBootstrap.ts';
import type { Config } from '../config.ts';
import { UsageError } from './command.ts';
import { apiKeyStamp, signingKey } from './stamp.ts';
import { UUID_PATTERN } from '../wire/uuid.ts';

/** What a credentials file holds (other fields, such as userId or baseUrl, are ignored). */
export interface UserCredentials {
  organizationId: string;
  /** Compressed or uncompressed P-256 public key, hex. */
  apiPublicKey: string;
  /** The 32-byte private scalar, hex. */
  apiPrivateKey: string;
}

export interface UserClient {
  readonly organizationId: string;
  /** POST /public/v1/submit/<path> with {type, timestampMs, organizationId, parameters}: the answer's activity. */
  submit(path: string, type: string, parameters: object): Promise<Record<string, any>>;
  /** POST /public/v1/query/<path> with {organizationId, ...body}: the answer. */
  query<T = Record<string, any>>(path: string, body?: object): Promise<T>;
}

/** Larger than any credentials file; a bigger one is not one. */
const MAX_FILE_BYTES = 64 * 1024;

/** The file to read and how it was found, for the messages. */
function credentialsFile(config: Config, flag: string | undefined): { file: string; from: string } {
  if (flag !== undefined) return { file: flag, from: '--credentials' };
  const env = process.env.SIGNET_CREDENTIALS;
  if (env) return { file: env, from: 'SIGNET_CREDENTIALS' };
  return { file: devCredentialsPath(config), from: 'the development credentials in SIGNET_DATA_DIR' };
}

/** The credentials of --credentials, SIGNET_CREDENTIALS or the data folder; an Error saying what to give when there are none. */
export function readCredentials(config: Config, flag: string | undefined): UserCredentials & { file: string } {
  const { file, from } = credentialsFile(config, flag);
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const message =
      `${missing ? 'no credentials file' : 'cannot read the credentials file'} ${file} (${from})${missing ? '' : `: ${(error as Error).message}`}; ` +
      'give --credentials FILE or set SIGNET_CREDENTIALS to a JSON file {organizationId, apiPublicKey, apiPrivateKey} ' +
      '(`signet org create --json` prints one; `signet apikey create --json` gives a key of another user), ' +
      'or set SIGNET_DATA_DIR to the folder of a development server, whose first start wrote dev-credentials.json';
    if (from === '--credentials') throw new UsageError(message);
    throw new Error(message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the credentials file ${file} is not JSON: ${(error as Error).message}`);
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const bad = (field: string, what: string): never => {
    throw new Error(`the credentials file ${file}: ${field} must be ${what}`);
  };
  const { organizationId, apiPublicKey, apiPrivateKey } = fields;
  if (typeof organizationId !== 'string' || !UUID_PATTERN.test(organizationId)) bad('organizationId', 'the UUID of the organization');
  if (typeof apiPublicKey !== 'string' || !/^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/.test(apiPublicKey)) {
    bad('apiPublicKey', 'a P-256 public key in hex (66 characters, or 130 uncompressed)');
  }
  if (typeof apiPrivateKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(apiPrivateKey)) bad('apiPrivateKey', 'a P-256 private key in hex (64 characters)');
  return { organizationId: organizationId as string, apiPublicKey: apiPublicKey as string, apiPrivateKey: apiPrivateKey as string, file };
}

export function userClient(config: Config, credentialsFlag: string | undefined): UserClient {
  const credentials = readCredentials(config, credentialsFlag);
  const { key, publicKey } = signingKey(credentials);
  const { organizationId } = credentials;

  async function post<T>(route: string, body: object): Promise<T> {
    const url = `${config.url}${route}`;
    const text = JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': apiKeyStamp(text, key, publicKey) }, body: text });
    } catch (error) {
      throw new Error(`cannot reach the Signet server at ${config.url} (is it running? set SIGNET_URL): ${(error as Error).message}`);
    }
    const answer = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const message = typeof parsed === 'object' && parsed !== null && 'message' in parsed ? String((parsed as { message: unknown }).message) : answer.slice(0, 500);
      const hint = response.status === 401 ? ` (the key came from ${credentials.file})` : '';
      throw new Error(`${response.status}: ${message}${hint} (POST ${url})`);
    }
    if (parsed === undefined) throw new Error(`the server answered ${response.status} with no JSON (POST ${url})`);
    return parsed as T;
  }

  return {
    organizationId,
    async submit(path, type, parameters) {
      const answer = await post<{ activity: Record<string, any> }>(`/public/v1/submit/${path}`, {
        type,
        timestampMs: String(Date.now()),
        organizationId,
        parameters,
      });
      return answer.activity;
    },
    query: (path, body = {}) => post(`/public/v1/query/${path}`, { organizationId, ...body }),
  };
}
