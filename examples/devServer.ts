// What the examples share: finding the running Signet and an API key the way the signet CLI does
// (src/cli/serverLocation.ts: SIGNET_CREDENTIALS, else the data folder SIGNET_DATA_DIR, default
// .signet, with credentials.json or dev-credentials.json; the server from SIGNET_URL, else the one
// running from the data folder, else the file's baseUrl), the development mailbox, and failing with
// one line that says what to set instead of a stack trace.
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { credentialsLocation, dataFolder, findServer as locate, readCredentialsFile } from '../src/cli/serverLocation.ts';

export interface DevCredentials {
  baseUrl: string;
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/** The server's data folder: SIGNET_DATA_DIR as `npm start` reads it. */
export const dataDir = dataFolder();

/** The command that runs another example against the same server. */
export function exampleCommand(example: string, ...args: string[]): string {
  const env = process.env.SIGNET_DATA_DIR ? `SIGNET_DATA_DIR=${dataDir} ` : '';
  return `${env}npx tsx examples/${example}${args.map((arg) => ` ${arg}`).join('')}`;
}

/** Ends the example with one line on standard error. */
export function fail(message: string): never {
  process.stderr.write(`${path.basename(process.argv[1] ?? 'example')}: ${message}\n`);
  process.exit(1);
}

/** Runs the example, turning any error into one line (with what to do where it is known). */
export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => fail(explain(error)));
}

/**
 * The credentials to use (SIGNET_CREDENTIALS, or SIGNET_DEV_CREDENTIALS, its older name, names a
 * file; else the data folder's), with baseUrl the server found for them, checked: it must answer.
 */
export async function findServer(): Promise<DevCredentials> {
  const { file, from } = credentialsLocation(dataDir);
  let fields: Record<string, unknown> | undefined;
  let baseUrl: string;
  try {
    fields = readCredentialsFile(file);
    if (fields === undefined) {
      fail(
        `no credentials at ${file} (${from}): start Signet with "npm start" in this folder (its first start writes them), ` +
          'or set SIGNET_DATA_DIR to the folder the server was started with; on PostgreSQL, `npx signet org create --name NAME` writes them there',
      );
    }
    baseUrl = locate({ dataDir, fallback: 'http://127.0.0.1:8080', credentials: { file, ...(typeof fields.baseUrl === 'string' ? { baseUrl: fields.baseUrl } : {}) } }).url;
  } catch (error) {
    fail((error as Error).message);
  }
  try {
    await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(3000) });
  } catch {
    fail(`Signet does not answer at ${baseUrl} (for ${file}): start it with "npm start", or set SIGNET_DATA_DIR to the folder of the server that is running`);
  }
  return { ...(fields as unknown as DevCredentials), baseUrl };
}

function explain(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/unknown API key|could not find public key/.test(message)) {
    return `${message.split('\n')[0]} — the server does not know these credentials: was it started with another SIGNET_DATA_DIR? Set SIGNET_DATA_DIR to that folder`;
  }
  return message.split('\n')[0]!;
}

/** A line of the email that is the code, grouped (e.g. 30FM-DAGXE) or not. */
const CODE = /^([0-9A-HJKMNP-TV-Z]{2,5}(?:[- ]?[0-9A-HJKMNP-TV-Z]{2,5})?)$/;

export interface MailedCode {
  otpId: string;
  code: string;
}

/**
 * The code of an OTP from the development mailbox (SIGNET_DATA_DIR/mail: the .eml files Signet
 * writes when no SIGNET_SMTP_URL is set): of `otpId`, or of the newest email. An email's Message-ID
 * names its OTP (<otp-ID@…>). Waits up to `waitMs` for the delivery worker to write it.
 */
export async function codeFromMailbox(otpId?: string, waitMs = 10_000): Promise<MailedCode | undefined> {
  const mailDir = path.join(dataDir, 'mail');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const files = fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml')) : [];
    // Newest first: the files' names start with the time they were written.
    for (const file of files.sort().reverse()) {
      const mail = await simpleParser(fs.readFileSync(path.join(mailDir, file)));
      const id = /^<otp-([0-9a-f-]{36})@/.exec(mail.messageId ?? '')?.[1];
      if (!id || (otpId !== undefined && id !== otpId.toLowerCase())) continue;
      const shown = (mail.text ?? '').split('\n').map((line) => CODE.exec(line.trim())?.[1]).find((found) => found !== undefined && found.replace(/[- ]/g, '').length >= 6);
      if (shown) return { otpId: id, code: shown.replace(/[- ]/g, '') };
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
