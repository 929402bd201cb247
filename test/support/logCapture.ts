// The JSON log lines a test server writes, kept in memory (StartOptions.logger's stream).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';

/** A stream that keeps every log line the server writes. */
export function logCapture(): { stream: Writable; text(): string; lines(): Array<Record<string, any>> } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          try {
            return JSON.parse(line);
          } catch {
            assert.fail(`a log line that is not JSON: ${line}`);
          }
        }),
  };
}
