// Fetches an email logo (emailCustomization.logoUrl) at delivery: https only unless allowed, only
// from public unicast addresses (checked after DNS, and the connection goes to the checked
// address), bounded in time and size, a PNG, resized to fit 340×124 without enlarging.
import http from 'node:http';
import https from 'node:https';
import { HostRefused, resolvePublicAddress, type PinnedAddress } from '../publicHost.ts';

export const LOGO_BOX = { width: 340, height: 124 } as const;

export interface LogoOptions {
  /** Accept http:// URLs (SIGNET_ALLOW_HTTP_LOGOS; for tests and closed networks). */
  allowHttp: boolean;
  /** Accept any address, not only public unicast ones (SIGNET_LOGO_ALLOW_PRIVATE; for tests). */
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

/** The checked address of the logo's host (delivery/publicHost.ts), or a LogoError. */
async function resolveLogoHost(hostname: string, allowPrivate: boolean): Promise<PinnedAddress> {
  try {
    return await resolvePublicAddress(hostname, allowPrivate, 'logos are fetched from');
  } catch (error) {
    throw error instanceof HostRefused ? new LogoError(error.message) : error;
  }
}

function download(url: URL, pinned: PinnedAddress, timeoutMs: number, maxBytes: number): Promise<Buffer> {
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
  const pinned = await resolveLogoHost(url.hostname, options.allowPrivate);
  const body = await download(url, pinned, options.timeoutMs ?? 5000, options.maxBytes ?? 2 * 1024 * 1024);
  if (!body.subarray(0, 8).equals(PNG_SIGNATURE)) throw new LogoError('not a PNG image');
  try {
    // Loaded at the first logo: most deployments never resize one, and sharp costs ~15 MiB.
    const { default: sharp } = await import('sharp');
    const { data, info } = await sharp(body, { limitInputPixels: 40_000_000 })
      .resize(LOGO_BOX.width, LOGO_BOX.height, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch (error) {
    throw new LogoError(`the PNG cannot be read: ${(error as Error).message}`);
  }
}
