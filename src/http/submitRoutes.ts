// POST /public/v1/submit/<activity>: one route per activity path, taken by the handler whose type
// and parameter shape the body has, and one per vote (approve_activity, reject_activity), as the
// votes module declares them. In one direction: the body is read as exactly the JSON its bytes say,
// auth verifies the stamp over those bytes and gives the principal, then the pipeline is called once;
// each submission is timed, counted by outcome and logged with its activity.
import type { FastifyInstance } from 'fastify';
import { byPath, envelopeOf, type Declared } from '../activities/lifecycle/intake.ts';
import type { Submission, SubmissionOutcome } from '../activities/lifecycle/model.ts';
import type { ActivityPipeline } from '../activities/lifecycle/pipeline.ts';
import { voteRoutes } from '../activities/lifecycle/votes.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import { parseBody } from '../wire/jsonDocument.ts';
import { parseStamp } from '../auth/parseStamp.ts';
import { permissionDenied, SignetError } from '../errors.ts';
import { READ_ONLY_SESSION_HEADER, readOnlySessionOf } from '../auth/authenticateReadOnlySession.ts';
import { rawBody } from './rawBody.ts';
import type { ActivityOutcome, Metrics } from './metrics.ts';
import { stampHeaderOf, type StampChecker } from './stampChecker.ts';

export function registerSubmitRoutes(
  app: FastifyInstance,
  pipeline: ActivityPipeline,
  stamps: StampChecker,
  handlers: readonly ActivityHandler[],
  metrics: Metrics,
) {
  const route = <D extends Declared>(path: string, declared: D[], submit: (one: D, submission: Submission) => Promise<SubmissionOutcome>) =>
    registerRoute(app, { stamps, metrics }, path, declared, submit);
  for (const [path, handlersOfPath] of byPath(handlers)) route(path, handlersOfPath, (handler, submission) => pipeline.submit(handler, submission));
  for (const [path, votes] of byPath(voteRoutes)) route(path, votes, (vote, submission) => pipeline.vote(vote, submission));
}

/** One submit route: the declarations of its path, and the pipeline's step that takes the body of the one chosen. */
function registerRoute<D extends Declared>(
  app: FastifyInstance,
  { stamps, metrics }: { stamps: StampChecker; metrics: Metrics },
  path: string,
  declared: D[],
  submit: (one: D, submission: Submission) => Promise<SubmissionOutcome>,
): void {
  // The one place ActivityHandler.acceptsAttestedStamp is read: a path takes attested stamps when a handler of it does.
  const attested = declared.some((one) => one.acceptsAttestedStamp === true);
  app.post(`/public/v1/submit/${path}`, async (request, reply) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    // Counted under the handler that took the body, or the path's first before one is known.
    let activityType = declared[0]!.activityType;
    let outcome;
    try {
      const body = rawBody(request);
      const document = parseBody(body);
      if (readOnlySessionOf(request.headers) !== undefined) {
        throw permissionDenied(
          'READ_ONLY_SESSION',
          `${READ_ONLY_SESSION_HEADER}: a read-only session reads only (POST /public/v1/query/...); it submits no activity and votes on none. ` +
            'Stamp this request with X-Stamp (an API key or a session key) or X-Stamp-WebAuthn',
        );
      }
      const stamp = parseStamp(request.headers, { attested });
      const { envelope, handler } = envelopeOf(declared, document);
      activityType = handler.activityType;
      // The one place ActivityHandler.fromSubOrganization and ActivityHandler.acceptsRecoveryKey are read.
      const principal = await stamps.principalOf(body, stamp, envelope.organizationId, {
        ...(handler.fromSubOrganization ? { fromSubOrganization: true } : {}),
        ...(handler.acceptsRecoveryKey ? { recoveryKey: true } : {}),
      });
      try {
        outcome = await submit(handler, { body, document, envelope, principal, stampHeader: stampHeaderOf(request.headers) });
      } catch (error) {
        stamps.failed(principal, error);
        throw error;
      }
    } catch (error) {
      const failure: ActivityOutcome = error instanceof SignetError && error.status < 500 ? 'refused' : 'failed';
      metrics.activity(activityType, failure, seconds());
      throw error;
    }
    const latency = seconds();
    metrics.activity(activityType, outcome.created ? 'created' : 'resubmitted', latency);
    request.log.info(
      {
        activityId: outcome.activityId,
        activityType,
        organizationId: outcome.organizationId,
        created: outcome.created,
        latencyMs: Math.round(latency * 1000 * 10) / 10,
      },
      outcome.created ? 'activity created' : 'activity resubmitted',
    );
    // A Buffer, encoded once: a string would be measured for Content-Length, then encoded again to be sent.
    return reply.status(200).type('application/json; charset=utf-8').send(Buffer.from(outcome.json));
  });
}
