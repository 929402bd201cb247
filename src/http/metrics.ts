// Prometheus metrics, served at GET /metrics: requests by route and status, activity latency,
// outbox depth, delivery outcomes and stamp failures. Each app counts in a registry of its own.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { permissionDenied, STAMP_FAILURE_REASONS, type StampFailureReason } from '../errors.ts';
import { addressMatcher } from './clientAddress.ts';

/** What became of one submission: a new activity, a resubmitted one, refused (4xx) or failed (5xx). */
export type ActivityOutcome = 'created' | 'resubmitted' | 'refused' | 'failed';

const ACTIVITY_OUTCOMES: readonly ActivityOutcome[] = ['created', 'resubmitted', 'refused', 'failed'];

/** Why a connection was closed as soon as it was accepted: its client's cap, or the server's bound. */
export type ConnectionRefusal = 'address' | 'server';

const CONNECTION_REFUSALS: readonly ConnectionRefusal[] = ['address', 'server'];

/** The route label of a request no route matched: one value, whatever the URL was. */
export const UNMATCHED_ROUTE = 'unmatched';

// Process metrics (CPU, memory, event loop lag, GC) describe the process, not an app: collected
// once per process, merged into every app's answer, so several apps in one process add no collectors.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'signet_' });
  }
  return processRegistry;
}

/** The outbox as the metrics see it, given by the server: its depth, and the labels of delivery outcomes. */
export interface OutboxGauge {
  /** Messages not finished yet, read at each scrape. */
  depth: () => Promise<number>;
  channels: readonly string[];
  outcomes: readonly string[];
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route'>;
  private readonly activities: Counter<'type' | 'outcome'>;
  private readonly activityDuration: Histogram<'type' | 'outcome'>;
  private readonly deliveries: Counter<'channel' | 'status'>;
  private readonly stampFailures: Counter<'reason'>;
  private readonly refusedConnections: Counter<'reason'>;

  /**
   * @param outbox the outbox whose depth is read at each scrape, and its delivery labels.
   * @param activityTypes the activity types served, so their series exist (at 0) before the first submission.
   * @param onDepthError told when the outbox depth cannot be read; the scrape still answers, with NaN.
   */
  constructor(outbox: OutboxGauge, activityTypes: readonly string[], onDepthError: (error: unknown) => void = () => {}) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'signet_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern ("unmatched" for no route) and status code',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'signet_http_request_duration_seconds',
      help: 'Time from receiving a request to sending its answer, by method and route pattern',
      labelNames: ['method', 'route'],
      registers,
    });
    this.activities = new Counter({
      name: 'signet_activities_total',
      help: 'Activity submissions, by activity type and outcome (created, resubmitted, refused, failed)',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.activityDuration = new Histogram({
      name: 'signet_activity_duration_seconds',
      help: 'Time the engine took for an activity submission (stamp, checks, transaction), by type and outcome',
      labelNames: ['type', 'outcome'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'signet_deliveries_total',
      help: 'Recorded outcomes of OTP delivery attempts by this process, by channel and status (sent, retrying, failed)',
      labelNames: ['channel', 'status'],
      registers,
    });
    this.stampFailures = new Counter({
      name: 'signet_stamp_failures_total',
      help: 'Requests refused for their stamp (401/403), by the check that refused it',
      labelNames: ['reason'],
      registers,
    });
    this.refusedConnections = new Counter({
      name: 'signet_connections_refused_total',
      help: 'Connections closed as soon as accepted, by reason: "address" (SIGNET_MAX_CONNECTIONS_PER_ADDRESS) or "server" (the bound set by the open-file limit)',
      labelNames: ['reason'],
      registers,
    });
    new Gauge({
      name: 'signet_outbox_depth',
      help: 'OTP messages not finished yet (queued, retrying or being sent), over the whole store; NaN when unreadable',
      registers,
      async collect() {
        try {
          this.set(await outbox.depth());
        } catch (error) {
          onDepthError(error);
          this.set(Number.NaN); // "unknown", rather than a stale or a zero depth
        }
      },
    });

    // Every series that can appear starts at 0, so rate() and increase() see the first event.
    for (const type of activityTypes) {
      for (const outcome of ACTIVITY_OUTCOMES) {
        this.activities.inc({ type, outcome }, 0);
        this.activityDuration.zero({ type, outcome });
      }
    }
    for (const channel of outbox.channels) for (const status of outbox.outcomes) this.deliveries.inc({ channel, status }, 0);
    for (const reason of STAMP_FAILURE_REASONS) this.stampFailures.inc({ reason }, 0);
    for (const reason of CONNECTION_REFUSALS) this.refusedConnections.inc({ reason }, 0);
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpDuration.observe({ method, route }, seconds);
  }

  activity(type: string, outcome: ActivityOutcome, seconds: number): void {
    this.activities.inc({ type, outcome });
    this.activityDuration.observe({ type, outcome }, seconds);
  }

  delivery(outcome: { channel: string; status: string }): void {
    this.deliveries.inc({ channel: outcome.channel, status: outcome.status });
  }

  stampFailure(reason: StampFailureReason): void {
    this.stampFailures.inc({ reason });
  }

  connectionRefused(reason: ConnectionRefusal): void {
    this.refusedConnections.inc({ reason });
  }

  /** The exposition text: this app's metrics and the process's. */
  async text(): Promise<string> {
    return Registry.merge([processMetrics(), this.registry]).metrics();
  }
}

/**
 * Counts every answered request and serves GET /metrics to the allowed client addresses
 * (SIGNET_METRICS_HOST; `*` for any). Scrape each process directly, not through the load balancer.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, allowedHosts: readonly string[]): void {
  const allowed = addressMatcher(allowedHosts);

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the URL: a URL per request would grow the series without bound.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', async (request, reply) => {
    if (!allowed(request.ip)) {
      throw permissionDenied(
        'ADDRESS_NOT_ALLOWED',
        `metrics are only served to the client addresses in SIGNET_METRICS_HOST; ${request.ip} ` +
          'is not one of them: scrape from an allowed address or add it',
      );
    }
    return reply.type(metrics.registry.contentType).send(await metrics.text());
  });
}
