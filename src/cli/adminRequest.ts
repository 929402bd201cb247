// The request an admin command sends: each flag's value where its route declares it (a path or query
// parameter, or a body field), read as the route takes it (a file's content, a number, every value of
// a repeated flag).
import fs from 'node:fs';
import { ADMIN_PREFIX, type AdminFlag, type AdminRoute } from '../http/adminApi.ts';
import { UsageError, type Input } from './command.ts';

function readFileFlag(input: Input, name: string): string {
  const file = input.need(name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--${name}: cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A flag's value as the request takes it; undefined when it is not given (or given empty, for a flag that skips it then). */
function flagValue(input: Input, name: string, flag: AdminFlag): unknown {
  if (flag.multiple) return input.all(name);
  const value = input.get(name);
  if (value === undefined || (flag.skipEmpty && value === '')) return undefined;
  if (flag.file) return readFileFlag(input, name);
  return flag.type === 'integer' && 'body' in flag.to ? Number(value) : value;
}

/** The request of an admin command: the route's path below /admin/v1 with the flags' path and query parameters, and its body. */
export function adminRequest(route: AdminRoute, flags: Record<string, AdminFlag>, input: Input): { path: string; body?: Record<string, unknown> } {
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(flags)) {
    const value = flagValue(input, name, flag);
    if (value === undefined) continue;
    if ('path' in flag.to) params[flag.to.path] = String(value);
    else if ('query' in flag.to) query.set(flag.to.query, String(value));
    else body[flag.to.body] = value;
  }
  const path = route.path.slice(ADMIN_PREFIX.length).replace(/\{(\w+)\}/g, (_match, parameter: string) => encodeURIComponent(params[parameter]!));
  return { path: query.size ? `${path}?${query}` : path, ...(route.body ? { body } : {}) };
}
