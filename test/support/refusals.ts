// How a request refused by the server rejects in @turnkey/http's clients: the wire's gRPC code and
// message, and the field a 400 names.
import assert from 'node:assert/strict';

/** Awaits a rejection with this code, a message matching `pattern`, and (when given) a field violation of `field`. */
export async function refused(promise: Promise<unknown>, code: number, pattern: RegExp, field?: string): Promise<void> {
  await assert.rejects(promise, (error: any) => {
    assert.equal(error.code, code, String(error.message));
    assert.match(String(error.message), pattern);
    if (field !== undefined) assert.ok(JSON.stringify(error.details ?? []).includes(`"field":"${field}"`), JSON.stringify(error.details));
    return true;
  });
}
