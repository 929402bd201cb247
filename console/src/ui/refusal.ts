// What a refused request tells a form: the server's message, its field violations (the
// google.rpc.BadRequest detail: `{field, description}` naming `parameters.<field>`), and, for a
// policy expression, the 1-based position the server reports (`at 17: expected ')'`), turned into
// the textarea's 0-based offset, its line and its column.

export interface Violation {
  field: string;
  description: string;
}

const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/** The error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The field violations an ApiError carries in its details (none for any other error). */
export function violationsOf(error: unknown): Violation[] {
  const details = (error as { details?: unknown } | null)?.details;
  if (!Array.isArray(details)) return [];
  const found: Violation[] = [];
  for (const detail of details) {
    if (detail === null || typeof detail !== 'object' || (detail as { '@type'?: unknown })['@type'] !== BAD_REQUEST) continue;
    const list = (detail as { fieldViolations?: unknown }).fieldViolations;
    if (!Array.isArray(list)) continue;
    for (const v of list) {
      if (v && typeof v.field === 'string' && typeof v.description === 'string') found.push({ field: v.field, description: v.description });
    }
  }
  return found;
}

/** The violations of one parameter (`parameters.condition`, `parameters.users[0].userEmail`…), by its name after `parameters.`. */
export function violationsAt(error: unknown, parameter: string): Violation[] {
  const field = `parameters.${parameter}`;
  return violationsOf(error).filter((v) => v.field === field || v.field.startsWith(`${field}.`) || v.field.startsWith(`${field}[`));
}

/** Where in an expression the server found its mistake. */
export interface ExpressionPosition {
  /** 0-based offset in the expression's text (UTF-16 code units, as the textarea counts). */
  offset: number;
  /** 1-based line and column of that offset. */
  line: number;
  column: number;
  /** The text of that line, for the caret under it. */
  lineText: string;
}

/** Characters of the line shown before and after the position: a caret line that fits a phone's width. */
const EXCERPT_BEFORE = 20;
const EXCERPT_AFTER = 16;

/** The part of the position's line around it (`…` where cut) and the caret under its column. */
export function caretExcerpt(position: ExpressionPosition): { text: string; caret: string } {
  const at = position.column - 1;
  const start = Math.max(0, at - EXCERPT_BEFORE);
  const end = Math.min(position.lineText.length, at + 1 + EXCERPT_AFTER);
  const head = start > 0 ? '…' : '';
  const text = `${head}${position.lineText.slice(start, end)}${end < position.lineText.length ? '…' : ''}`;
  return { text, caret: `${' '.repeat(head.length + at - start)}^` };
}

/** The position a violation's description reports (`… at 17: …`, 1-based), within `source`; undefined when it gives none. */
export function expressionPosition(description: string, source: string): ExpressionPosition | undefined {
  const match = /\bat (\d+):/.exec(description);
  if (!match) return undefined;
  const offset = Math.min(Math.max(Number(match[1]) - 1, 0), source.length);
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = source.indexOf('\n', offset);
  return {
    offset,
    line: before.split('\n').length,
    column: offset - lineStart + 1,
    lineText: source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd),
  };
}
