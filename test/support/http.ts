// Posting exact bytes to a running Signet, stamped by the ecosystem's own API-key stamper: what most
// HTTP-level tests do, written once.
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import type { Credentials } from './server.ts';

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any;
  text: string;
}

/** Stamp headers for exactly these bytes. */
export async function stampHeaders(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>, body: string) {
  const stamp = await new ApiKeyStamper(credentials).stamp(body);
  return { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue };
}

/** POSTs `body` as given with the given headers. */
export async function post(baseUrl: string, route: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${baseUrl}${route}`, { method: 'POST', headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** POSTs `body` stamped with `credentials`. */
export async function postStamped(
  baseUrl: string,
  route: string,
  body: string,
  credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>,
): Promise<Answer> {
  return post(baseUrl, route, body, await stampHeaders(credentials, body));
}
