// Waiting, bounded, for what a test cannot await: a file or a log line another process writes, a
// row the worker records, a message a loopback server receives. The bound only catches what never
// happens: it is generous, so a loaded machine (the suite runs two files at once on shared cores)
// does not fail a test that waits for what does happen.
import assert from 'node:assert/strict';

export interface UntilOptions {
  /** How long to wait before the test fails (default 30 s). */
  timeoutMs?: number;
  /** How often to look (default 20 ms). */
  everyMs?: number;
}

/**
 * Calls check until it gives something other than undefined, null or false, and returns that. Fails
 * the test once timeoutMs have passed, with what it waited for: a text, or a function that says it
 * at that moment (how far it got).
 */
export async function until<T>(
  what: string | (() => string),
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 30_000, everyMs = 20 }: UntilOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() >= deadline) assert.fail(`waited ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
