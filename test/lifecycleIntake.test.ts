// Intake, plain data (src/activities/lifecycle/intake.ts): the handler an envelope goes to, the intent
// and the App Proofs flag, the activity as stored, the organization it is of. Nothing is started.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { z } from 'zod';
import type { ActivityHandler } from '../src/activities/handler.ts';
import { envelopeOf, fingerprintOf, generateAppProofsOf, handlerOfType, intake, organizationOf, storedFormOf } from '../src/activities/lifecycle/intake.ts';
import type { Principal } from '../src/auth/principal.ts';
import { SignetError } from '../src/errors.ts';

const organizationId = randomUUID();

/** A handler of plain data: what intake reads of one. */
function handler(activityType: string, parameters: z.ZodType, extra: Partial<ActivityHandler> = {}): ActivityHandler {
  return {
    path: 'example',
    activityType,
    resource: 'ACTIVITY',
    action: 'CREATE',
    reasons: [],
    summary: 'an example',
    intentKey: 'exampleIntent',
    resultKey: 'exampleResult',
    parameters,
    example: {},
    execute: () => Promise.reject(new Error('intake never executes')),
    ...extra,
  };
}

const byCode = handler('ACTIVITY_TYPE_EXAMPLE_V2', z.strictObject({ code: z.string() }), {
  otherActivityTypes: ['ACTIVITY_TYPE_EXAMPLE'],
  takes: (parameters) => 'code' in parameters,
  redact: (parameters) => ('code' in parameters ? { ...parameters, code: '' } : parameters),
});
const byName = handler('ACTIVITY_TYPE_EXAMPLE_V2', z.strictObject({ name: z.string(), limit: z.number().default(10) }));

const document = (type: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type,
  timestampMs: '1767225600000',
  organizationId,
  parameters,
  ...extra,
});

/** The 400's field violations, to assert what a refusal names. */
function fieldsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof SignetError, String(error));
    assert.equal(error.status, 400);
    return (error.toJSON() as { details: Array<{ fieldViolations?: Array<{ field: string }> }> }).details.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);
  }
  assert.fail('no refusal');
}

test("the handler: by the envelope's type (or an older spelling), then by the shape of its parameters", () => {
  const handlers = [byCode, byName];
  assert.equal(envelopeOf(handlers, document('ACTIVITY_TYPE_EXAMPLE_V2', { code: '123456' })).handler, byCode);
  assert.equal(envelopeOf(handlers, document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a' })).handler, byName);
  assert.equal(envelopeOf(handlers, document('ACTIVITY_TYPE_EXAMPLE', { code: '1' })).handler, byCode, 'an older spelling of the type');
  // None takes the shape: the first of the type, whose schema then names what is wrong.
  assert.equal(envelopeOf([byCode], document('ACTIVITY_TYPE_EXAMPLE_V2', { other: 1 })).handler, byCode);
  assert.equal(handlerOfType(handlers, 'ACTIVITY_TYPE_EXAMPLE'), byCode);
  assert.equal(handlerOfType(handlers, 'ACTIVITY_TYPE_UNKNOWN'), undefined);
});

test('an envelope of another type, or not an envelope, is a 400 naming the field', () => {
  assert.deepEqual(fieldsOf(() => envelopeOf([byName], document('ACTIVITY_TYPE_OTHER', {}))), ['type']);
  assert.deepEqual(fieldsOf(() => envelopeOf([byName], { ...document('ACTIVITY_TYPE_EXAMPLE_V2', {}), organizationId: 'nope' })), ['organizationId']);
});

test('the intent: the parameters as the schema makes them, defaults filled; the App Proofs flag at either place', () => {
  const { envelope } = envelopeOf([byName], document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a', generateAppProofs: true }));
  assert.deepEqual(intake(byName, envelope), { intent: { name: 'a', limit: 10 }, generateAppProofs: true });
  const outside = envelopeOf([byName], document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a' }, { generateAppProofs: true })).envelope;
  assert.equal(intake(byName, outside).generateAppProofs, true);
  const none = envelopeOf([byName], document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a' })).envelope;
  assert.equal(intake(byName, none).generateAppProofs, false);
  assert.deepEqual(fieldsOf(() => intake(byName, { ...none, parameters: { name: 'a', generateAppProofs: 'yes' } })), ['parameters.generateAppProofs']);
  assert.deepEqual(fieldsOf(() => intake(byName, { ...none, parameters: { name: 1 } })), ['parameters.name']);
});

test("a stored activity's App Proofs flag is read from its body at either place", () => {
  assert.equal(generateAppProofsOf(JSON.stringify(document('T', {}, { generateAppProofs: true }))), true);
  assert.equal(generateAppProofsOf(JSON.stringify(document('T', { generateAppProofs: true }))), true);
  assert.equal(generateAppProofsOf(JSON.stringify(document('T', { generateAppProofs: false }))), false);
});

test('the activity as stored: a secret the body carries is replaced, and such an activity is known to carry one', () => {
  const withCode = document('ACTIVITY_TYPE_EXAMPLE_V2', { code: '123456' });
  const body = Buffer.from(JSON.stringify(withCode));
  const { envelope } = envelopeOf([byCode], withCode);
  const stored = storedFormOf(byCode, { body, document: withCode, envelope }, { code: '123456' });
  assert.deepEqual(stored, { rawBody: JSON.stringify({ ...withCode, parameters: { code: '' } }), intent: { code: '' }, carriesSecret: true });
  // Without a redact, the body is kept byte for byte.
  const spaced = Buffer.from(` ${JSON.stringify(document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a' }))}`);
  const plain = storedFormOf(byName, { body: spaced, document: {}, envelope }, { name: 'a' });
  assert.deepEqual(plain, { rawBody: spaced.toString('utf8'), intent: { name: 'a' }, carriesSecret: false });
});

test("the organization: the body's, unless the stamp acts in a sub-organization; the fingerprint is over the bytes", () => {
  const { envelope } = envelopeOf([byName], document('ACTIVITY_TYPE_EXAMPLE_V2', { name: 'a' }));
  assert.equal(organizationOf({ envelope, principal: {} as Principal }), organizationId);
  const sub = randomUUID();
  assert.equal(organizationOf({ envelope, principal: { actsIn: sub } as Principal }), sub);
  assert.match(fingerprintOf(Buffer.from('{}')), /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(fingerprintOf(Buffer.from('{}')), fingerprintOf(Buffer.from('{ }')));
});
