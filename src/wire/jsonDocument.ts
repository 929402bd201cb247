// Untrusted JSON read as exactly the document its bytes say: strict UTF-8, nesting bounded before
// anything recursive sees it, no key that JavaScript objects treat specially, and only strings
// PostgreSQL can store. Walks are iterative, so no input can exhaust the stack.
import { invalidField, malformedRequest, type SignetError } from '../errors.ts';

/** Nesting of a request body: the deepest activity needs 4 levels; 32 leaves room and bounds every walk. */
export const MAX_BODY_DEPTH = 32;

/**
 * Keys that a JavaScript object treats specially. JSON.parse keeps them as plain data, but code that
 * copies or validates objects may drop or follow them, so the activity could differ from the signed
 * bytes: they are refused wherever they appear.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface DocumentProblem {
  /** Path of the offending value, e.g. `parameters.emailCustomization.__proto__`, `(body)` for the root. */
  field: string;
  description: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a JSON value, or a 400 saying what is wrong with it. */
export function parseJsonDocument(body: Buffer, maxDepth = MAX_BODY_DEPTH): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw malformedRequest('request body is not valid UTF-8');
  }
  let document: unknown;
  try {
    // V8's JSON.parse is iterative: deep nesting costs memory, not stack, and is bounded by the body limit.
    document = JSON.parse(text);
  } catch (error) {
    throw malformedRequest(`request body is not valid JSON: ${(error as Error).message}`);
  }
  const problem = jsonDocumentProblem(document, maxDepth);
  if (problem) throw documentError(problem);
  return document;
}

/** The 400 for a problem, naming the field (the message repeats it for clients that only log `message`). */
export function documentError(problem: DocumentProblem): SignetError {
  return invalidField(problem.field, problem.description);
}

function join(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** A string PostgreSQL's text and jsonb cannot hold: one with NUL or an unpaired UTF-16 surrogate. */
export const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * The first problem of a parsed JSON value: nesting deeper than `maxDepth` (objects and arrays), a
 * forbidden key, or a string or key PostgreSQL cannot hold (NUL, an unpaired UTF-16 surrogate).
 * Walked with an explicit stack; paths are spelled out only when there is a problem (a second,
 * slower walk), so a 400 KiB interface of some 25,000 values is checked in about a millisecond.
 */
export function jsonDocumentProblem(root: unknown, maxDepth: number, rootPath = ''): DocumentProblem | undefined {
  return hasProblem(root, maxDepth) ? locateProblem(root, maxDepth, rootPath) : undefined;
}

function hasProblem(root: unknown, maxDepth: number): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (unstorable(value)) return true;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxDepth) return true;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        values.push(value[i]);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in value) {
      if (FORBIDDEN_KEYS.has(key) || unstorable(key)) return true;
      values.push((value as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** The same walk, depth-first in document order, naming the path of the first problem. */
function locateProblem(root: unknown, maxDepth: number, rootPath: string): DocumentProblem | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: rootPath, depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (unstorable(value)) return { field: path || '(body)', description: 'contains a NUL character or an unpaired UTF-16 surrogate; remove it' };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxDepth) {
      return { field: path || '(body)', description: `nests objects and arrays more than ${maxDepth} levels deep; the limit is ${maxDepth}` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: join(path, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      if (FORBIDDEN_KEYS.has(key)) return { field: join(path, key), description: `"${key}" is not allowed as a field name anywhere in a request; remove it` };
      if (unstorable(key)) return { field: join(path, key), description: 'this field name contains a NUL character or an unpaired UTF-16 surrogate; rename it' };
    }
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], path: join(path, keys[i]!), depth: depth + 1 });
  }
  return undefined;
}

/** A request body that must be a JSON object (activities, queries), or a 400 saying what is wrong. */
export function parseBody(body: Buffer): Record<string, unknown> {
  const document = parseJsonDocument(body);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw malformedRequest('request body must be a JSON object with type, timestampMs, organizationId and parameters');
  }
  return document as Record<string, unknown>;
}
