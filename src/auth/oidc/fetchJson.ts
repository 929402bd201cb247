// One bounded GET of a JSON document over https (an issuer's discovery document, its JWKS): no
// redirect followed, a whole-answer deadline, a size cap, strict UTF-8. The connection trusts the
// system's CAs and NODE_EXTRA_CA_CERTS (Node's default agent) unless an agent is given (tests give
// one trusting their own CA).
import https from 'node:https';

export interface FetchLimits {
  /** Time for the whole answer, connection to last byte. */
  timeoutMs: number;
  maxBytes: number;
}

export interface FetchOptions extends FetchLimits {
  agent?: https.Agent | undefined;
}

/** The JSON value at `url`, or an Error whose message says what went wrong (without the answer's content). */
export function fetchJson(url: string, options: FetchOptions): Promise<unknown> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.reject(new Error(`${JSON.stringify(url.slice(0, 200))} is not a URL`));
  }
  if (parsed.protocol !== 'https:') return Promise.reject(new Error(`${parsed.href} is not an https:// URL`));
  const { timeoutMs, maxBytes } = options;
  return new Promise((resolve, reject) => {
    const fail = (message: string) => reject(new Error(`GET ${parsed.href}: ${message}`));
    const request = https.get(
      parsed,
      { agent: options.agent, headers: { accept: 'application/json', 'user-agent': 'Signet OIDC key fetcher' }, timeout: timeoutMs },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.destroy();
          fail(status >= 300 && status < 400 ? `answered HTTP ${status}; redirects are not followed` : `answered HTTP ${status}`);
          return;
        }
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) {
          response.destroy();
          fail(`the answer is larger than ${maxBytes} bytes`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            fail(`the answer is larger than ${maxBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            resolve(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))));
          } catch {
            fail('the answer is not JSON in UTF-8');
          }
        });
        response.on('error', (error) => fail(error.message));
      },
    );
    const deadline = setTimeout(() => request.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => fail(error.message));
    request.on('close', () => clearTimeout(deadline));
  });
}
