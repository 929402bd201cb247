// How the user commands (policy, quorum, activity) reach a running server: as a user of an
// organization, through the public API, each request stamped with that user's API key like any
// client's (X-Stamp: base64url JSON {publicKey, scheme, signature}, the signature a DER ECDSA P-256 /
// SHA-256 over the exact body bytes). The organization's authorization decides what they may do, as
// it does for every client. The key and the server are found as serverLocation.ts says: the key from
// --credentials FILE, SIGNET_CREDENTIALS or the data folder; the server from SIGNET_URL, the data
// folder's running server or the file's baseUrl, and a file naming another server is refused.
import type { ActivityParametersOfType, ActivityPath, ActivityTypesOfPath } from '../activities/activityParameters.ts';
import type { Config } from '../config.ts';
import { UsageError } from './command.ts';
import { serverError } from './serverError.ts';
import { credentialsBaseUrl, credentialsLocation, findServer, noCredentialsHelp, readCredentialsFile, type FoundServer } from './serverLocation.ts';
import { apiKeyStamp, keyPairOf, signingKey } from './stamp.ts';
import { UUID_PATTERN } from '../wire/uuid.ts';

/** What a credentials file holds (other fields, such as userId, are ignored). */
export interface UserCredentials {
  /** The server the key is for; every file Signet writes has it. */
  baseUrl?: string;
  organizationId: string;
  /** Compressed or uncompressed P-256 public key, hex. */
  apiPublicKey: string;
  /** The 32-byte private scalar, hex. */
  apiPrivateKey: string;
}

export interface UserClient {
  readonly organizationId: string;
  /**
   * POST /public/v1/submit/<path> with {type, timestampMs, organizationId, parameters}: the answer's activity. Typed from
   * the handlers (activities/activityParameters.ts): a type the path does not take, or parameters of the wrong names or
   * types, do not compile.
   */
  submit<Path extends ActivityPath, Type extends ActivityTypesOfPath[Path]>(path: Path, type: Type, parameters: ActivityParametersOfType[Type]): Promise<Record<string, any>>;
  /** POST /public/v1/query/<path> with {organizationId, ...body}: the answer. */
  query<T = Record<string, any>>(path: string, body?: object): Promise<T>;
}

/** The credentials of --credentials, SIGNET_CREDENTIALS or the data folder; an Error saying what to give when there are none. */
export function readCredentials(config: Config, flag: string | undefined): UserCredentials & { file: string } {
  const { file, from } = credentialsLocation(config.dataDir, flag);
  let fields: Record<string, unknown> | undefined;
  try {
    fields = readCredentialsFile(file);
  } catch (error) {
    if (from === '--credentials') throw new UsageError(`--credentials: ${(error as Error).message}`);
    throw error;
  }
  if (fields === undefined) {
    const message = `no credentials file ${file} (${from}); ${noCredentialsHelp(config.dataDir)}`;
    if (from === '--credentials') throw new UsageError(message);
    throw new Error(message);
  }
  const { organizationId } = fields;
  if (typeof organizationId !== 'string' || !UUID_PATTERN.test(organizationId)) {
    throw new Error(`the credentials file ${file}: organizationId must be the UUID of the organization`);
  }
  const keyPair = keyPairOf(fields, `the credentials file ${file}`);
  const baseUrl = credentialsBaseUrl(fields, file);
  return { ...(baseUrl !== undefined ? { baseUrl } : {}), organizationId, ...keyPair, file };
}

export function userClient(config: Config, credentialsFlag: string | undefined): UserClient {
  const credentials = readCredentials(config, credentialsFlag);
  const { key, publicKey } = signingKey(credentials);
  const { organizationId } = credentials;
  const server: FoundServer = findServer({ dataDir: config.dataDir, fallback: config.url, credentials });

  async function post<T>(route: string, body: object): Promise<T> {
    const url = `${server.url}${route}`;
    const text = JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': apiKeyStamp(text, key, publicKey) }, body: text });
    } catch (error) {
      throw new Error(`cannot reach the Signet server at ${server.url} (from ${server.from}; is it running? set SIGNET_URL): ${(error as Error).message}`);
    }
    const answer = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const hint = response.status === 401 ? ` (the key came from ${credentials.file})` : '';
      throw serverError(response.status, parsed, answer, `${hint} (POST ${url})`);
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
