// Fetches an email logo (emailCustomization.logoUrl) at delivery: https only unless allowed, never
// from private, loopback or link-local addresses (checked after DNS, and the connection goes to
// the checked address), bounded in time and size, a PNG, resized to fit 340×124 without enlarging.
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import sharp from 'sharp';

export const LOGO_BOX = { width: 340, height: 124 } as const;

export interface LogoOptions {
  /** Accept http:// URLs (SIGNET_ALLOW_HTTP_LOGOS; for tests and closed networks). */
  allowHttp: boolean;
  /** Accept private, loopback and link-local addresses (SIGNET_LOGO_ALLOW_PRIVATE; for tests). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface Logo {
  png: Buffer;
  width: number;
  height: number;
}

/** Why a logo was left out; the email is sent without it and the reason recorded. */
export class LogoError extends Error {
  override name = 'LogoError';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// Ranges that reach this host, its network or cloud metadata services rather than the internet.
const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) blocked.addSubnet(prefix, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? blocked.check(mapped[1]!, 'ipv4') : blocked.check(address, 'ipv6');
}

async function resolvePublicAddress(hostname: string, allowPrivate: boolean): Promise<{ address: string; family: number }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await dns.lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new LogoError(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
  }
  // Every answer must be public: otherwise a name with one public and one private record could pick either.
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    throw new LogoError(`${host} resolves to a private, loopback or link-local address; logos are fetched from public addresses only`);
  }
  if (addresses.length === 0) throw new LogoError(`cannot resolve ${host}`);
  return addresses[0]!;
}

function download(url: URL, pinned: { address: string; family: number }, timeoutMs: number, maxBytes: number): Promise<Buffer> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.get(
      url,
      {
        // Connect to the address that was checked, whatever DNS says a moment later (rebinding).
        lookup: (_hostname, _options, callback) => callback(null, pinned.address, pinned.family),
        headers: { accept: 'image/png', 'user-agent': 'Signet logo fetcher' },
        timeout: timeoutMs,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          reject(new LogoError(status >= 300 && status < 400 ? `redirects are not followed (HTTP ${status})` : `HTTP ${status}`));
          return;
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          response.destroy();
          reject(new LogoError(`the logo is larger than ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(new LogoError(`the logo is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks)));
        response.on('error', (error) => reject(new LogoError(`download failed: ${error.message}`)));
      },
    );
    const deadline = setTimeout(() => request.destroy(new LogoError(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('timeout', () => request.destroy(new LogoError(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => reject(error instanceof LogoError ? error : new LogoError(`download failed: ${error.message}`)));
    request.on('close', () => clearTimeout(deadline));
  });
}

/** The logo ready to embed, or a LogoError saying why not. */
export async function fetchLogo(logoUrl: string, options: LogoOptions): Promise<Logo> {
  let url: URL;
  try {
    url = new URL(logoUrl);
  } catch {
    throw new LogoError('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
    throw new LogoError(`${url.protocol} URLs are not fetched; use https`);
  }
  const pinned = await resolvePublicAddress(url.hostname, options.allowPrivate);
  const body = await download(url, pinned, options.timeoutMs ?? 5000, options.maxBytes ?? 2 * 1024 * 1024);
  if (!body.subarray(0, 8).equals(PNG_SIGNATURE)) throw new LogoError('not a PNG image');
  try {
    const { data, info } = await sharp(body, { limitInputPixels: 40_000_000 })
      .resize(LOGO_BOX.width, LOGO_BOX.height, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch (error) {
    throw new LogoError(`the PNG cannot be read: ${(error as Error).message}`);
  }
}
