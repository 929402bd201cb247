// Intake, pure: what a parsed body is before anything is decided. The envelope and the handler that
// takes it, the intent (the handler's parameter schema over the envelope's parameters), the App
// Proofs flag, and the organization the activity is of. Nothing here reads the store.
import { hash } from 'node:crypto';
import { invalidField } from '../../errors.ts';
import { schemaError } from '../../wire/violations.ts';
import type { ActivityHandler } from '../handler.ts';
import { envelopeSchema, type Envelope } from '../wire/envelope.ts';
import type { Intake, StoredForm, Submission } from './model.ts';

/**
 * What routes a body: the path it is posted to, the types it may carry, the parameters' shape it
 * takes, and whose stamp it may carry. An activity handler declares it, and so does a vote route (votes.ts).
 */
export type Declared = Pick<ActivityHandler, 'path' | 'activityType' | 'otherActivityTypes' | 'takes' | 'fromSubOrganization' | 'acceptsAttestedStamp' | 'acceptsRecoveryKey' | 'parentMaySubmit'>;

/** The declarations grouped by their path, in their order: one route each (several handlers may share one). */
export function byPath<D extends Pick<Declared, 'path'>>(declared: readonly D[]): Map<string, D[]> {
  const paths = new Map<string, D[]>();
  for (const one of declared) paths.set(one.path, [...(paths.get(one.path) ?? []), one]);
  return paths;
}

/** The declarations among `declared` that take activities of `type` (by their type, or an older spelling of it). */
export function handlersOfType<D extends Declared>(declared: readonly D[], type: string): D[] {
  return declared.filter((one) => one.activityType === type || one.otherActivityTypes?.includes(type));
}

/** The handler of a stored activity's type, when one is served. */
export function handlerOfType<D extends Declared>(declared: readonly D[], type: string): D | undefined {
  return handlersOfType(declared, type)[0];
}

/**
 * The envelope of a parsed body for an endpoint, and the handler among the endpoint's that takes
 * it (by `type`, then by the shape of `parameters`), or a 400 naming what is wrong.
 */
export function envelopeOf<D extends Declared>(handlers: readonly D[], document: Record<string, unknown>): { envelope: Envelope; handler: D } {
  const parsed = envelopeSchema.safeParse(document, { reportInput: true });
  if (!parsed.success) throw schemaError(parsed.error, '', 'invalid activity envelope');
  const envelope = parsed.data;
  const typed = handlersOfType(handlers, envelope.type);
  if (typed.length === 0) {
    const accepted = [...new Set(handlers.flatMap((h) => [h.activityType, ...(h.otherActivityTypes ?? [])]))];
    throw invalidField('type', `this endpoint accepts ${accepted.map((t) => `"${t}"`).join(' or ')}, got "${envelope.type}"`);
  }
  return { envelope, handler: handlerTaking(typed, envelope.parameters)! };
}

/** Among one type's handlers, the one that takes these parameters; the first when none says so. */
export function handlerTaking<D extends Declared>(typed: readonly D[], parameters: Record<string, unknown>): D | undefined {
  // The one place `takes` branches: among one type's handlers, the shape of the parameters chooses.
  return typed.find((h) => h.takes?.(parameters) ?? true) ?? typed[0];
}

/**
 * The intent, which the handler's parameter schema makes of the envelope's parameters (strict,
 * defaults filled), and the App Proofs flag; or a 400 naming what is wrong, the field under `at`
 * (`parameters` in an envelope; a dry run's request has them elsewhere).
 */
export function intake(handler: Pick<ActivityHandler, 'parameters'>, envelope: Pick<Envelope, 'parameters' | 'generateAppProofs'>, at = 'parameters'): Intake {
  // The ecosystem's server-side and browser SDKs send the App Proofs flag inside `parameters`.
  const { generateAppProofs: flagged, ...parameters } = envelope.parameters;
  if (flagged !== undefined && typeof flagged !== 'boolean') throw invalidField(`${at}.generateAppProofs`, 'must be true or false');
  const parsed = handler.parameters.safeParse(parameters, { reportInput: true });
  if (!parsed.success) throw schemaError(parsed.error, at, 'invalid parameters');
  return { intent: parsed.data, generateAppProofs: envelope.generateAppProofs === true || flagged === true };
}

/**
 * The activity as it is stored: the one place ActivityHandler.redact is read. A secret the body
 * carries in clear is not kept: the stored body (the votes' message) and the intent have it replaced;
 * the fingerprint, over the bytes as signed, still checks the signature.
 */
export function storedFormOf(handler: ActivityHandler, submission: Pick<Submission, 'body' | 'document' | 'envelope'>, intent: unknown): StoredForm {
  const { redact } = handler;
  if (!redact) return { rawBody: submission.body.toString('utf8'), intent, carriesSecret: false };
  const { parameters } = submission.envelope;
  const redacted = redact(parameters);
  return {
    rawBody: JSON.stringify({ ...submission.document, parameters: redacted }),
    intent: redact(intent as Record<string, unknown>),
    carriesSecret: redacted !== parameters,
  };
}

/**
 * The App Proofs flag of a stored activity's body (read when an approval executes it): intake
 * refused any flag that was not a boolean, so only `true`, at either place, asks for proofs.
 */
export function generateAppProofsOf(rawBody: string): boolean {
  const document = JSON.parse(rawBody) as { generateAppProofs?: unknown; parameters?: { generateAppProofs?: unknown } };
  return document.generateAppProofs === true || document.parameters?.generateAppProofs === true;
}

/** The organization a submission's activity is of: the body's, unless the stamp acts in another (Principal.actsIn). */
export function organizationOf(submission: Pick<Submission, 'envelope' | 'principal'>): string {
  return submission.principal.actsIn ?? submission.envelope.organizationId;
}

/** The fingerprint of a body, over its bytes as signed: a body submitted again is known by it. */
export function fingerprintOf(body: Buffer): string {
  return `sha256:${hash('sha256', body, 'hex')}`;
}
