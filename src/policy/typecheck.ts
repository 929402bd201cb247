// Static types of a parsed expression, checked when a policy is written: every name is a keyword of
// the expression's kind (or a bound variable), every field exists, operands have the types their
// operator takes, and the whole is a boolean. activity.params is dynamic and checked at evaluation.
import { ExpressionFailure } from './failure.ts';
import { BOOL, DYNAMIC, INT, KEYWORDS, NOTHING, STRING, listOf, typeName, type ExpressionKind, type Type } from './keywords.ts';
import { startOf, type Node } from './parser.ts';

type Scope = ReadonlyMap<string, Type>;

const isLoose = (type: Type) => type.kind === 'dynamic' || type.kind === 'nothing';
const isPrimitive = (type: Type) => type.kind === 'bool' || type.kind === 'int' || type.kind === 'string';

/** Whether values of the two types can meet (in one list, on two sides of ==): loose types meet any. */
function agree(a: Type, b: Type): boolean {
  if (isLoose(a) || isLoose(b)) return true;
  if (a.kind === 'list' && b.kind === 'list') return agree(a.of, b.of);
  if (a.kind === 'struct' && b.kind === 'struct') return a.name === b.name;
  return a.kind === b.kind;
}

function expect(node: Node, type: Type, ...accepted: Type['kind'][]): void {
  if (isLoose(type) || accepted.includes(type.kind)) return;
  const expected = accepted.length > 1 ? `${accepted.slice(0, -1).join(', ')} or ${accepted.at(-1)}` : accepted[0];
  throw new ExpressionFailure(startOf(node), `expected ${expected}, found ${typeName(type)}`);
}

class Checker {
  constructor(private readonly kind: ExpressionKind) {}

  check(node: Node, scope: Scope): Type {
    switch (node.type) {
      case 'literal':
        return typeof node.value === 'boolean' ? BOOL : typeof node.value === 'string' ? STRING : INT;
      case 'list': {
        let element: Type = NOTHING;
        for (const item of node.items) {
          const type = this.check(item, scope);
          if (!agree(element, type)) {
            throw new ExpressionFailure(startOf(item), `expected ${typeName(element)} like the list's first item, found ${typeName(type)}`);
          }
          if (isLoose(element)) element = type;
        }
        return listOf(element);
      }
      case 'name': {
        const type = scope.get(node.name) ?? KEYWORDS[this.kind].get(node.name);
        if (type !== undefined) return type;
        const other: ExpressionKind = this.kind === 'condition' ? 'consensus' : 'condition';
        const allowed = [...KEYWORDS[this.kind].keys(), ...scope.keys()].join(', ');
        const hint = KEYWORDS[other].has(node.name) ? ` ('${node.name}' is a ${other} keyword)` : '';
        throw new ExpressionFailure(node.position, `unknown keyword '${node.name}'${hint}: expected ${allowed} in a ${this.kind}`);
      }
      case 'logical':
        for (const operand of node.operands) expect(operand, this.check(operand, scope), 'bool');
        return BOOL;
      case 'compare':
        this.checkComparison(node, scope);
        return BOOL;
      case 'field': {
        const target = this.check(node.target, scope);
        return this.fieldType(target, node.field, node.position);
      }
      case 'index': {
        const target = this.check(node.target, scope);
        const index = this.check(node.index, scope);
        if (isLoose(target)) {
          expect(node.index, index, 'int', 'string');
          return DYNAMIC;
        }
        if (target.kind === 'struct') {
          if (node.index.type !== 'literal' || typeof node.index.value !== 'string') {
            throw new ExpressionFailure(node.index.position, `expected a field name in quotes to index ${target.name}`);
          }
          return this.fieldType(target, node.index.value, node.index.position);
        }
        expect(node.index, index, 'int');
        if (target.kind === 'list') return target.of;
        expect(node.target, target, 'list', 'string');
        return STRING;
      }
      case 'slice': {
        const target = this.check(node.target, scope);
        expect(node.start, this.check(node.start, scope), 'int');
        expect(node.end, this.check(node.end, scope), 'int');
        expect(node.target, target, 'list', 'string');
        return target;
      }
      case 'call': {
        const target = this.check(node.target, scope);
        expect(node.target, target, 'list');
        const element = target.kind === 'list' ? target.of : DYNAMIC;
        switch (node.function) {
          case 'count':
            return INT;
          case 'contains': {
            const argument = this.check(node.argument!, scope);
            this.checkMembership(node.argument!, argument, element, node.target);
            return BOOL;
          }
          default: {
            // The variable shadows a keyword or an outer variable of the same name inside the predicate.
            const inner = new Map(scope).set(node.variable!, element);
            expect(node.argument!, this.check(node.argument!, inner), 'bool');
            return node.function === 'filter' ? target : BOOL;
          }
        }
      }
    }
  }

  private fieldType(target: Type, field: string, position: number): Type {
    if (isLoose(target)) return DYNAMIC;
    if (target.kind !== 'struct') throw new ExpressionFailure(position, `expected a struct before '.${field}', found ${typeName(target)}`);
    const type = target.fields.get(field);
    if (type === undefined) {
      throw new ExpressionFailure(position, `${target.name} has no field '${field}': expected one of ${[...target.fields.keys()].join(', ')}`);
    }
    return type;
  }

  private checkComparison(node: Extract<Node, { type: 'compare' }>, scope: Scope): void {
    const left = this.check(node.left, scope);
    const right = this.check(node.right, scope);
    if (node.operator === 'in') {
      expect(node.right, right, 'list');
      this.checkMembership(node.left, left, right.kind === 'list' ? right.of : DYNAMIC, node.right);
      return;
    }
    if (node.operator === '==' || node.operator === '!=') {
      expect(node.left, left, 'bool', 'int', 'string');
      if (!agree(left, right)) throw new ExpressionFailure(startOf(node.right), `expected ${typeName(left)}, found ${typeName(right)}`);
      return;
    }
    expect(node.left, left, 'int');
    expect(node.right, right, 'int');
  }

  /** `value in list` and `list.contains(value)`: lists of bool, int or string, and a value of that type. */
  private checkMembership(valueNode: Node, value: Type, element: Type, listNode: Node): void {
    if (!isLoose(element) && !isPrimitive(element)) {
      throw new ExpressionFailure(startOf(listNode), `expected a list of bool, int or string, found list<${typeName(element)}>`);
    }
    expect(valueNode, value, 'bool', 'int', 'string');
    if (!agree(value, element)) throw new ExpressionFailure(startOf(valueNode), `expected ${typeName(element)}, found ${typeName(value)}`);
  }
}

/** Checks `node` as a whole `kind` expression; throws ExpressionFailure (see failure.ts) on a type error. */
export function typecheck(node: Node, kind: ExpressionKind): void {
  const type = new Checker(kind).check(node, new Map());
  expect(node, type, 'bool');
}
