// How the admin commands reach a running server: its admin API at the server serverLocation.ts finds
// (SIGNET_URL, else the one running from SIGNET_DATA_DIR, else SIGNET_URL's default), with
// SIGNET_ADMIN_TOKEN or the token file the server wrote into SIGNET_DATA_DIR; an error answer becomes
// a ServerError with the status, the server's message (which names the command that fixes it, where
// one does) and the URL called, so a CLI pointed at the wrong server says which one it asked (the
// command names its flags where the message names the fields they filled).
import fs from 'node:fs';
import { adminTokenPath } from '../admin/localSecrets.ts';
import type { Config } from '../config.ts';
import { serverError } from './serverError.ts';
import { findServer, type FoundServer } from './serverLocation.ts';

export interface AdminClient {
  /** The server called, and where its URL came from. */
  readonly server: FoundServer;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** Every item of a paged list, newest first: each page starts after the last item of the one before. */
  everyPage<T extends Record<string, unknown>>(path: string, key: string, idField: keyof T & string): Promise<T[]>;
  /** A GET whose answer is a file: its headers and bytes. */
  download(path: string): Promise<{ headers: Headers; body: Buffer }>;
}

/** The token, and where it came from for the error messages. */
function adminToken(config: Config): { token: string; from: string } {
  if (config.adminToken) return { token: config.adminToken, from: 'SIGNET_ADMIN_TOKEN' };
  const file = adminTokenPath(config);
  try {
    return { token: fs.readFileSync(file, 'utf8').trim(), from: file };
  } catch {
    throw new Error(
      `no admin token: set SIGNET_ADMIN_TOKEN to the server's, or SIGNET_DATA_DIR to the server's data folder ` +
        `(the server writes its generated token to SIGNET_DATA_DIR/admin-token; ${file} does not exist)`,
    );
  }
}

export function adminClient(config: Config): AdminClient {
  const server = findServer({ dataDir: config.dataDir, fallback: config.url });
  /** The answer to a request, or an Error saying why there is none (no server, or an error answer). */
  async function request(method: string, path: string, body?: unknown): Promise<{ response: Response }> {
    const { token, from } = adminToken(config);
    const url = `${server.url}/admin/v1${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new Error(`cannot reach the Signet server at ${server.url} (from ${server.from}; is it running? set SIGNET_URL): ${(error as Error).message}`);
    }
    if (response.ok) return { response };
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: reported as text below
    }
    const hint = response.status === 401 ? ` (the token sent came from ${from})` : '';
    throw serverError(response.status, parsed, text, `${hint} (${method} ${url})`);
  }

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { response } = await request(method, path, body);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T;
    }
  }

  return {
    server,
    call,
    async download(path: string) {
      const { response } = await request('GET', path);
      return { headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
    },
    async everyPage<T extends Record<string, unknown>>(path: string, key: string, idField: keyof T & string) {
      const items: T[] = [];
      const separator = path.includes('?') ? '&' : '?';
      for (let after = ''; ; ) {
        const page = (await call<Record<string, T[]>>('GET', `${path}${separator}limit=500${after && `&after=${after}`}`))[key]!;
        if (page.length === 0) return items;
        items.push(...page);
        after = String(page[page.length - 1]![idField]);
      }
    },
  };
}
