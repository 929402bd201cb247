// SQL fragments with their parameters, so statements can be composed from parts written in
// different store files (an activity's row, its domain rows, its vote) and still be sent as one
// parameterised statement. `sql\`… ${value} …\`` turns values into $n parameters and inlines nested
// fragments; nothing is ever spliced into the text but fragments.
import type { Queryable } from './db.ts';

export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql([...strings], values);
}

/** Trusted text (a table or column name written in the source), never input. */
export function raw(text: string): Sql {
  return new Sql([text], []);
}

export function join(parts: readonly Sql[], separator = ', '): Sql {
  if (parts.length === 0) return raw('');
  const strings: string[] = [''];
  const values: unknown[] = [];
  parts.forEach((part, i) => {
    if (i > 0) strings[strings.length - 1] += separator;
    const [first = '', ...rest] = part.strings;
    strings[strings.length - 1] += first;
    strings.push(...rest);
    values.push(...part.values);
  });
  return new Sql(strings, values);
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
  return changed ? new Sql(fragment.strings, values) : fragment;
}

/** The statement text with $1…$n and its parameters. */
export function compile(fragment: Sql): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const visit = (part: Sql): string => {
    let text = part.strings[0] ?? '';
    part.values.forEach((value, i) => {
      if (value instanceof Sql) {
        text += visit(value);
      } else {
        values.push(value);
        text += `$${values.length}`;
      }
      text += part.strings[i + 1] ?? '';
    });
    return text;
  };
  return { text: visit(fragment), values };
}

export function run<T>(db: Queryable, fragment: Sql): Promise<T[]> {
  const { text, values } = compile(fragment);
  return db.query<T>(text, values);
}
