// The policy language's syntax tree and its parser, with the bounds on an expression's size and nesting.
//
// Hand-written recursive descent rather than a parser generator or library: the grammar is a dozen
// rules, errors must name the exact 1-based position and the token expected there, and the module
// must stay free of dependencies (it decides who may do what, so every line of it is ours to read).
import { ExpressionFailure } from './failure.ts';
import type { PolicyInt } from './integers.ts';
import { tokenize, type Token } from './lexer.ts';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 4096;
/** Deepest nesting of brackets: parentheses, list literals, indexes and slices, function arguments. */
export const MAX_NESTING = 64;

export type ComparisonOperator = '==' | '!=' | '<' | '>' | '<=' | '>=' | 'in';
export const LIST_FUNCTIONS = ['all', 'any', 'contains', 'count', 'filter'] as const;
export type ListFunction = (typeof LIST_FUNCTIONS)[number];

export type Node =
  /** An int literal's value is a number, or a bigint beyond 2^53 - 1 in size (integers.ts). */
  | { readonly type: 'literal'; readonly value: boolean | PolicyInt | string; readonly position: number }
  | { readonly type: 'list'; readonly items: readonly Node[]; readonly position: number }
  | { readonly type: 'name'; readonly name: string; readonly position: number }
  /** `&&` or `||` over two or more operands, flat so that a long chain does not nest. */
  | { readonly type: 'logical'; readonly operator: '&&' | '||'; readonly operands: readonly Node[]; readonly position: number }
  | { readonly type: 'compare'; readonly operator: ComparisonOperator; readonly left: Node; readonly right: Node; readonly position: number }
  | { readonly type: 'field'; readonly target: Node; readonly field: string; readonly position: number }
  | { readonly type: 'index'; readonly target: Node; readonly index: Node; readonly position: number }
  | { readonly type: 'slice'; readonly target: Node; readonly start: Node; readonly end: Node; readonly position: number }
  | {
      readonly type: 'call';
      readonly target: Node;
      readonly function: ListFunction;
      /** The bound variable of all/any/filter. */
      readonly variable?: string;
      /** The predicate of all/any/filter, the value of contains; absent for count. */
      readonly argument?: Node;
      readonly position: number;
    };

const RESERVED = new Set(['true', 'false', 'in']);
const COMPARISONS = new Set<string>(['==', '!=', '<', '>', '<=', '>=']);

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the expression';
    case 'string':
      return 'a string';
    default:
      return `'${token.text}'`;
  }
}

class Parser {
  private index = 0;
  private depth = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private get current(): Token {
    return this.tokens[this.index]!;
  }

  private next(): Token {
    const token = this.current;
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private isOp(text: string): boolean {
    return this.current.kind === 'op' && this.current.text === text;
  }

  private fail(expected: string): never {
    throw new ExpressionFailure(this.current.position, `expected ${expected}, found ${describe(this.current)}`);
  }

  private expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail(`'${text}'`);
    return this.next();
  }

  /** Entering the bracket at `position`. */
  private open(position: number): void {
    if (++this.depth > MAX_NESTING) {
      throw new ExpressionFailure(position, `nesting deeper than ${MAX_NESTING} brackets`);
    }
  }

  private close(text: string): void {
    this.expectOp(text);
    this.depth--;
  }

  parseWhole(): Node {
    const node = this.parseOr();
    if (this.current.kind !== 'end') this.fail(`'&&', '||' or the end of the expression`);
    return node;
  }

  private parseOr(): Node {
    return this.parseLogical('||', () => this.parseAnd());
  }

  private parseAnd(): Node {
    return this.parseLogical('&&', () => this.parseComparison());
  }

  private parseLogical(operator: '&&' | '||', operand: () => Node): Node {
    const first = operand();
    if (!this.isOp(operator)) return first;
    const operands = [first];
    while (this.isOp(operator)) {
      this.next();
      operands.push(operand());
    }
    return { type: 'logical', operator, operands, position: first.position };
  }

  private parseComparison(): Node {
    const left = this.parsePostfix();
    const token = this.current;
    const isComparison = (token.kind === 'op' && COMPARISONS.has(token.text)) || (token.kind === 'ident' && token.text === 'in');
    if (!isComparison) return left;
    this.next();
    const right = this.parsePostfix();
    const after = this.current;
    if ((after.kind === 'op' && COMPARISONS.has(after.text)) || (after.kind === 'ident' && after.text === 'in')) {
      // `a == b == c` means nothing useful in this language: say so rather than pick an associativity.
      throw new ExpressionFailure(after.position, `expected '&&', '||' or ')' (comparisons do not chain; add parentheses)`);
    }
    return { type: 'compare', operator: token.text as ComparisonOperator, left, right, position: token.position };
  }

  private parsePostfix(): Node {
    let node = this.parsePrimary();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.current;
        if (name.kind !== 'ident') this.fail('a field or function name after \'.\'');
        this.next();
        if (this.isOp('(')) {
          node = this.parseCall(node, name);
        } else {
          node = { type: 'field', target: node, field: name.text, position: name.position };
        }
      } else if (this.isOp('[')) {
        const bracket = this.next();
        this.open(bracket.position);
        const first = this.parseOr();
        if (this.isOp('..')) {
          this.next();
          const end = this.parseOr();
          this.close(']');
          node = { type: 'slice', target: node, start: first, end, position: bracket.position };
        } else {
          if (!this.isOp(']')) this.fail(`']' or '..'`);
          this.close(']');
          node = { type: 'index', target: node, index: first, position: bracket.position };
        }
      } else {
        return node;
      }
    }
  }

  private parseCall(target: Node, name: Token): Node {
    const fn = LIST_FUNCTIONS.find((candidate) => candidate === name.text);
    if (fn === undefined) {
      throw new ExpressionFailure(name.position, `unknown function '${name.text}': expected one of ${LIST_FUNCTIONS.join(', ')}`);
    }
    this.open(this.next().position);
    const position = name.position;
    let node: Node;
    if (fn === 'count') {
      node = { type: 'call', target, function: fn, position };
    } else if (fn === 'contains') {
      node = { type: 'call', target, function: fn, argument: this.parseOr(), position };
    } else {
      const variable = this.current;
      if (variable.kind !== 'ident' || RESERVED.has(variable.text)) this.fail(`a variable name (${fn}(item, predicate))`);
      this.next();
      this.expectOp(',');
      node = { type: 'call', target, function: fn, variable: variable.text, argument: this.parseOr(), position };
    }
    this.close(')');
    return node;
  }

  private parsePrimary(): Node {
    const token = this.current;
    switch (token.kind) {
      case 'int':
        this.next();
        return { type: 'literal', value: token.value!, position: token.position };
      case 'string':
        this.next();
        return { type: 'literal', value: token.text, position: token.position };
      case 'ident':
        if (token.text === 'true' || token.text === 'false') {
          this.next();
          return { type: 'literal', value: token.text === 'true', position: token.position };
        }
        if (token.text === 'in') this.fail('a value');
        this.next();
        return { type: 'name', name: token.text, position: token.position };
      case 'op':
        if (token.text === '(') {
          this.next();
          this.open(token.position);
          const inner = this.parseOr();
          this.close(')');
          return inner;
        }
        if (token.text === '[') {
          this.next();
          this.open(token.position);
          const items: Node[] = [];
          if (!this.isOp(']')) {
            items.push(this.parseOr());
            while (this.isOp(',')) {
              this.next();
              items.push(this.parseOr());
            }
            if (!this.isOp(']')) this.fail(`',' or ']'`);
          }
          this.close(']');
          return { type: 'list', items, position: token.position };
        }
        return this.fail('a value');
      default:
        return this.fail('a value');
    }
  }
}

/** The syntax tree of `source`; throws ExpressionFailure (see failure.ts) when it is not an expression. */
export function parse(source: string): Node {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionFailure(MAX_EXPRESSION_LENGTH + 1, `expected at most ${MAX_EXPRESSION_LENGTH} characters, found ${source.length}`);
  }
  return new Parser(tokenize(source)).parseWhole();
}

/** Where the text of `node` begins (a node's own position is its operator's: `.field`, `[`, `==`). */
export function startOf(node: Node): number {
  switch (node.type) {
    case 'field':
    case 'index':
    case 'slice':
    case 'call':
      return startOf(node.target);
    case 'compare':
      return startOf(node.left);
    case 'logical':
      return startOf(node.operands[0]!);
    default:
      return node.position;
  }
}
