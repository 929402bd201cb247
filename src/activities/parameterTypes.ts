// The parameters of each activity as TypeScript types, written from the handlers' parameter schemas
// (as a client may send them: a field with a default may be left out) into one file that imports
// nothing (activityParameters.ts), so the console, which has its own compiler settings and may take
// only types from src/, and the CLI type their submissions with it. `npm run -s generate` writes it;
// test/declarations.test.ts holds it to the handlers.
import { z } from 'zod';
import type { ActivityHandler } from './handler.ts';
import { handlersByPath, type ActivityDeclaration } from './declarations.ts';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  $ref?: string;
  description?: string;
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A literal type: a string in single quotes, as the rest of the source writes them. */
const literal = (value: unknown) => (typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value));

/** The TypeScript type of a JSON Schema (zod's input form), indented for `depth`. */
function typeOf(schema: JsonSchema, definitions: Record<string, JsonSchema>, depth: number): string {
  if (schema.$ref) return typeOf(definitions[schema.$ref.replace('#/$defs/', '')] ?? {}, definitions, depth);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return [...new Set(union.map((member) => typeOf(member, definitions, depth)))].join(' | ');
  if (schema.allOf) return schema.allOf.map((member) => typeOf(member, definitions, depth)).join(' & ');
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, definitions, depth)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${schema.items ? typeOf(schema.items, definitions, depth) : 'unknown'}>`;
    case 'object':
      return objectType(schema, definitions, depth);
    default:
      return 'unknown';
  }
}

function objectType(schema: JsonSchema, definitions: Record<string, JsonSchema>, depth: number): string {
  const indent = '  '.repeat(depth + 1);
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const key = IDENTIFIER.test(name) ? name : literal(name);
    return `${indent}${key}${required.has(name) ? '' : '?'}: ${typeOf(field, definitions, depth + 1)};`;
  });
  const rest = schema.additionalProperties;
  if (rest && rest !== true) fields.push(`${indent}[key: string]: ${typeOf(rest, definitions, depth + 1)};`);
  if (fields.length === 0) return rest === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${fields.join('\n')}\n${'  '.repeat(depth)}}`;
}

/** The parameters a handler takes, as a TypeScript type. */
export function parameterType(handler: Pick<ActivityHandler, 'parameters'>, depth = 1): string {
  const { $defs = {}, ...schema } = z.toJSONSchema(handler.parameters, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  return typeOf(schema, $defs, depth);
}

/** The source of activityParameters.ts: each path's types, and each type's parameters. */
export function parameterTypesSource(handlers: readonly ActivityDeclaration[]): string {
  const paths = [...handlersByPath(handlers)];
  const typesOfPath = paths.map(([path, group]) => {
    const types = [...new Set(group.flatMap((handler) => [handler.activityType, ...(handler.otherActivityTypes ?? [])]))];
    return `  ${path}: ${types.map((type) => `'${type}'`).join(' | ')};`;
  });
  const types = [...new Set(handlers.flatMap((handler) => [handler.activityType, ...(handler.otherActivityTypes ?? [])]))];
  const parametersOfType = types.map((type) => {
    // A type several handlers take (verify_otp's V1 spelling) takes the parameters of any of them.
    const takers = handlers.filter((handler) => handler.activityType === type || handler.otherActivityTypes?.includes(type));
    return `  ${type}: ${[...new Set(takers.map((handler) => parameterType(handler)))].join(' | ')};`;
  });
  return [
    '// Written from the activity handlers by `npm run -s generate` (src/activities/parameterTypes.ts): do not edit by hand.',
    '// The parameters of each activity type as a client sends them, in a file that imports nothing, so the console and the',
    "// CLI type their submissions with it: `submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {…})`.",
    '',
    '/** The activity types each path of POST /public/v1/submit/<path> takes. */',
    'export interface ActivityTypesOfPath {',
    ...typesOfPath,
    '}',
    '',
    '/** The parameters of each activity type (a field with a default may be left out). */',
    'export interface ActivityParametersOfType {',
    ...parametersOfType,
    '}',
    '',
    'export type ActivityPath = keyof ActivityTypesOfPath;',
    'export type ActivityType = keyof ActivityParametersOfType;',
    '',
  ].join('\n');
}
