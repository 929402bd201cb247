// SQL fragments with their parameters, so statements can be composed from parts written in
// different store files (an activity's row, its domain rows, its vote) and still be sent as one
// parameterised statement. `sql\`… ${value} …\`` turns values into $n parameters and inlines nested
// fragments; nothing is ever spliced into the text but fragments.
//
// A statement's text depends only on its shape: which fragments it nests where, and where its
// parameters go, never on their values. compile() finds the shape by walking the fragments (no
// text is made for that) and makes the text once per shape: a group commit of 32 activities is
// some 150 KB of text, which was otherwise composed, flattened and hashed again at every statement.
import type { Queryable } from './db.ts';

export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
    /**
     * What identifies `strings` for compile's shapes: the template's own strings object (one per
     * place in the source), a raw fragment's text, join's shared strings; undefined when nothing
     * does (the statement's text is then composed at every compile).
     */
    readonly key?: unknown,
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values, strings);
}

/** Trusted text (a table or column name written in the source), never input. */
export function raw(text: string): Sql {
  return new Sql([text], [], text);
}

/** join's keys by separator and number of parts: equal keys, equal strings. */
let joinKeys = new Map<string, Map<number, object>>();

export function join(parts: readonly Sql[], separator = ', '): Sql {
  if (parts.length === 0) return raw('');
  const strings = new Array<string>(parts.length + 1).fill(separator);
  strings[0] = '';
  strings[parts.length] = '';
  let bySize = joinKeys.get(separator);
  if (bySize === undefined) joinKeys.set(separator, (bySize = new Map()));
  let key = bySize.get(parts.length);
  if (key === undefined) bySize.set(parts.length, (key = {}));
  return new Sql(strings, parts, key);
}

/** The fragment with every occurrence of the fragment `from` (the same object) replaced by `to`. */
export function substitute(fragment: Sql, from: Sql, to: Sql): Sql {
  if (fragment === from) return to;
  let changed = false;
  const values = fragment.values.map((value) => {
    if (!(value instanceof Sql)) return value;
    const replaced = substitute(value, from, to);
    if (replaced !== value) changed = true;
    return replaced;
  });
  return changed ? new Sql(fragment.strings, values, fragment.key) : fragment;
}

/**
 * A shape: a fragment's key, then each of its values that is a nested fragment, with its place and
 * its shape, as a path through a tree of the shapes seen. A key fixes how many values a fragment
 * has, so the values the path leaves out are parameters: the same path is the same text.
 */
class Shape {
  /** The shapes that continue this one, by the next nested fragment's shape and place. */
  readonly next = new Map<number, Shape>();
  /** The text of a statement of this shape, once made. */
  text: string | undefined = undefined;
  constructor(readonly id: number) {}
}
/** Places of nested fragments in one fragment that a shape tells apart; past them it has no shape. */
const PLACES = 4096;
/** The shape each key starts from. */
let shapeStarts = new Map<unknown, Shape>();
let shapesMade = 0;
/** Bound on the shapes remembered: past it they are forgotten and found again (ids × PLACES stay small integers). */
const SHAPES_KEPT = 50_000;

function shapeStart(key: unknown): Shape {
  let shape = shapeStarts.get(key);
  if (shape === undefined) shapeStarts.set(key, (shape = new Shape(++shapesMade)));
  return shape;
}

function nextShape(shape: Shape, nested: Shape, place: number): Shape | undefined {
  if (place >= PLACES) return undefined;
  const step = nested.id * PLACES + place;
  let next = shape.next.get(step);
  if (next === undefined) shape.next.set(step, (next = new Shape(++shapesMade)));
  return next;
}

/** The last Date sent, by its time, with its ISO text. */
let lastDate = { time: Number.NaN, text: '' };

/**
 * A parameter as it is sent. A valid Date goes as its ISO text, which PostgreSQL reads as the same
 * instant wherever it is a timestamptz: pg would otherwise format it in the local time zone, field
 * by field. An activity's statement holds the same moment several times, so the last text made is
 * kept. (An invalid Date is left for the driver to refuse.)
 */
function parameter(value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  const time = value.getTime();
  if (Number.isNaN(time)) return value;
  if (time !== lastDate.time) lastDate = { time, text: value.toISOString() };
  return lastDate.text;
}

/** Pushes the fragment's parameters to `values`, in order; returns its shape, or undefined when a part has none. */
function collect(part: Sql, values: unknown[]): Shape | undefined {
  let shape = part.key === undefined ? undefined : shapeStart(part.key);
  const parts = part.values;
  for (let place = 0; place < parts.length; place++) {
    const value = parts[place];
    if (value instanceof Sql) {
      const nested = collect(value, values);
      shape = shape === undefined || nested === undefined ? undefined : nextShape(shape, nested, place);
    } else {
      values.push(parameter(value));
    }
  }
  return shape;
}

/** The fragment's text with its parameters numbered $1…$n in order. */
function textOf(fragment: Sql): string {
  const pieces: string[] = [];
  let parameters = 0;
  const visit = (part: Sql): void => {
    pieces.push(part.strings[0] ?? '');
    part.values.forEach((value, i) => {
      if (value instanceof Sql) visit(value);
      else pieces.push(`$${++parameters}`);
      pieces.push(part.strings[i + 1] ?? '');
    });
  };
  visit(fragment);
  return pieces.join('');
}

/** The statement text with $1…$n and its parameters. */
export function compile(fragment: Sql): { text: string; values: unknown[] } {
  if (shapesMade > SHAPES_KEPT) {
    shapeStarts = new Map();
    joinKeys = new Map();
    shapesMade = 0;
  }
  const values: unknown[] = [];
  const shape = collect(fragment, values);
  if (shape === undefined) return { text: textOf(fragment), values };
  shape.text ??= textOf(fragment);
  return { text: shape.text, values };
}

export function run<T>(db: Queryable, fragment: Sql): Promise<T[]> {
  const { text, values } = compile(fragment);
  return db.query<T>(text, values);
}
