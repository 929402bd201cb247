// The console's client of Signet's public API: every request is a POST of JSON to this origin,
// stamped in the page by the signed-in user's credential (stamp/). The console has no other way in.
import type { ActivityParametersOfType, ActivityPath, ActivityTypesOfPath } from '../../src/activities/activityParameters.ts';
import type { Stamper } from './stamp/stamper.ts';

export type { ActivityParametersOfType } from '../../src/activities/activityParameters.ts';

export interface Activity {
  id: string;
  organizationId: string;
  status: string;
  type: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  votes: unknown[];
  fingerprint: string;
  canApprove: boolean;
  canReject: boolean;
  createdAt: unknown;
  updatedAt: unknown;
  [k: string]: unknown;
}

/** A refusal from the server, with what its error body says. */
export class ApiError extends Error {
  status: number;
  code: number | undefined;
  reason: string | undefined;
  details: unknown[];
  constructor(status: number, body: Record<string, unknown> | undefined, fallback: string) {
    super(typeof body?.message === 'string' && body.message ? body.message : fallback);
    this.name = 'ApiError';
    this.status = status;
    this.code = typeof body?.code === 'number' ? body.code : undefined;
    this.details = Array.isArray(body?.details) ? body.details : [];
    // The stable reason travels in the details, as the ecosystem's TurnkeyErrorDetail.
    const detail = this.details.find((d): d is { turnkeyErrorCode: string } => typeof (d as { turnkeyErrorCode?: unknown })?.turnkeyErrorCode === 'string');
    this.reason = detail?.turnkeyErrorCode;
  }
}

export interface Api {
  readonly organizationId: string;
  readonly userId: string;
  /** POST /public/v1/query/<name>; `organizationId` is added to the body when absent. */
  query<T = any>(name: string, body?: Record<string, unknown>): Promise<T>;
  /**
   * POST /public/v1/submit/<name> with {type, timestampMs, organizationId, parameters}; resolves with the response's `activity`.
   * Typed from the handlers (src/activities/activityParameters.ts): a type the path does not take, or parameters its
   * schema would refuse for their names or types, do not compile.
   */
  submit<Path extends ActivityPath, Type extends ActivityTypesOfPath[Path]>(
    name: Path,
    type: Type,
    parameters: ActivityParametersOfType[Type],
    organizationId?: string,
  ): Promise<Activity>;
}

/** The requests of exclusive stampers (passkeys), in the order they were made. */
let exclusiveQueue: Promise<unknown> = Promise.resolve();

/** Sends `body` stamped by `stamper` to `path`; the answer's JSON, or an ApiError. */
export function post<T>(stamper: Stamper, path: string, body: Record<string, unknown>): Promise<T> {
  if (!stamper.exclusive) return send<T>(stamper, path, body);
  const sent = exclusiveQueue.then(() => send<T>(stamper, path, body));
  exclusiveQueue = sent.catch(() => undefined);
  return sent;
}

/** Sends at once, outside the queue of exclusive stampers: for a request made while stamping a queued one. */
export async function send<T>(stamper: Stamper, path: string, body: Record<string, unknown>): Promise<T> {
  const text = JSON.stringify(body);
  const stamp = await stamper.stamp(text);
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', [stamp.name]: stamp.value }, body: text });
  } catch (error) {
    throw new ApiError(0, undefined, `Signet could not be reached: ${(error as Error).message}`);
  }
  let json: Record<string, unknown> | undefined;
  try {
    json = (await response.json()) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (!response.ok || !json) throw new ApiError(response.status, json, `Signet answered ${response.status} ${response.statusText}`);
  return json as T;
}

export interface Whoami {
  organizationId: string;
  organizationName: string;
  userId: string;
  username: string;
}

/** Who a credential is in an organization: a refused credential rejects with the server's message. */
export function whoami(stamper: Stamper, organizationId: string): Promise<Whoami> {
  return post<Whoami>(stamper, '/public/v1/query/whoami', { organizationId });
}

export function createApi(stamper: Stamper, organizationId: string, userId: string): Api {
  return {
    organizationId,
    userId,
    query: (name, body = {}) => post(stamper, `/public/v1/query/${name}`, { organizationId, ...body }),
    async submit(name, type, parameters, target = organizationId) {
      const answer = await post<{ activity: Activity }>(stamper, `/public/v1/submit/${name}`, {
        type,
        timestampMs: String(Date.now()),
        organizationId: target,
        parameters,
      });
      return answer.activity;
    },
  };
}
