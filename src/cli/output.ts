// How a command prints one answer: `key: value` lines, or the answer as JSON, with the line that
// follows a secret shown this once.
import type { Input } from './command.ts';

/** The line that follows a secret the answer shows this once (a new private key). */
export function shownOnce(field: string): string {
  return `${field} is shown once — store it now; Signet keeps ${/PrivateKey$/.test(field) ? 'only the public key' : 'no copy'}`;
}

/**
 * `key: value` lines, or the whole answer as JSON. Each of `secretFields` the answer has is followed
 * by a line saying it is shown once: on stdout after the lines, or on stderr with --json, so that
 * stdout stays one JSON document.
 */
export function print(result: object, input: Input, secretFields: readonly string[] = []): number {
  const secrets = secretFields.filter((field) => typeof (result as Record<string, unknown>)[field] === 'string' && (result as Record<string, unknown>)[field] !== '');
  if (input.on('json')) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    for (const field of secrets) process.stderr.write(`signet: ${shownOnce(field)}\n`);
  } else {
    for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${String(value)}\n`);
    for (const field of secrets) process.stdout.write(`${shownOnce(field)}\n`);
  }
  return 0;
}
