// TEMPORARY: the console's Api as its contract states it, until console/src/api.ts is merged in; the
// views then import from '../api.ts' and this file goes.
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
export declare class ApiError extends Error {
  status: number;
  code: number | undefined;
  reason: string | undefined;
  details: unknown[];
}
export interface Api {
  readonly organizationId: string;
  readonly userId: string;
  query<T = any>(name: string, body?: Record<string, unknown>): Promise<T>;
  submit(name: string, type: string, parameters: Record<string, unknown>, organizationId?: string): Promise<Activity>;
}

/** TEMPORARY stand-in for routes.ts's navigate. */
export function navigate(url: string): void {
  history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate'));
}
