// Tokens of the policy language: identifiers, integers (exact, -2^255 to 2^256 - 1), single-quoted
// strings and operators, each with its 1-based position, so that every later error can point at the
// character it is about.
import { ExpressionFailure } from './failure.ts';
import { intLiteral, type PolicyInt } from './integers.ts';

export type TokenKind = 'ident' | 'int' | 'string' | 'op' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The identifier's name, the operator's spelling, the string's decoded text or the integer's digits. */
  readonly text: string;
  /** The integer's value (integers.ts): a number, or a bigint beyond 2^53 - 1 in size. */
  readonly value?: PolicyInt;
  readonly position: number;
}

// Longest first, so `<=` is not read as `<` then `=`.
const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '..', '<', '>', '(', ')', '[', ']', ',', '.'] as const;

const isDigit = (c: string) => c >= '0' && c <= '9';
const isIdentStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const position = i + 1;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (isIdentStart(c)) {
      let end = i + 1;
      while (end < source.length && isIdentPart(source[end]!)) end++;
      tokens.push({ kind: 'ident', text: source.slice(i, end), position });
      i = end;
    } else if (isDigit(c) || (c === '-' && isDigit(source[i + 1] ?? ''))) {
      // No arithmetic in the language, so a minus sign can only begin a negative integer.
      let end = i + 1;
      while (end < source.length && isDigit(source[end]!)) end++;
      const text = source.slice(i, end);
      const value = intLiteral(text);
      if (value === undefined) {
        throw new ExpressionFailure(position, `integer ${text.length > 24 ? `${text.slice(0, 24)}…` : text} is out of range (-2^255 to 2^256 - 1)`);
      }
      tokens.push({ kind: 'int', text, value, position });
      i = end;
    } else if (c === "'") {
      let text = '';
      let end = i + 1;
      for (;;) {
        if (end >= source.length) throw new ExpressionFailure(position, "unterminated string: expected a closing '");
        const d = source[end]!;
        if (d === "'") break;
        if (d === '\\') {
          const escaped = source[end + 1];
          if (escaped !== "'" && escaped !== '\\') {
            throw new ExpressionFailure(end + 1, "expected \\' or \\\\ after a backslash in a string");
          }
          text += escaped;
          end += 2;
        } else {
          text += d;
          end++;
        }
      }
      tokens.push({ kind: 'string', text, position });
      i = end + 1;
    } else {
      const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
      if (op === undefined) {
        const shown = c === '"' ? `'"' (strings take single quotes)` : `'${c}'`;
        throw new ExpressionFailure(position, `unexpected character ${shown}`);
      }
      tokens.push({ kind: 'op', text: op, position });
      i += op.length;
    }
  }
  tokens.push({ kind: 'end', text: '', position: source.length + 1 });
  return tokens;
}
