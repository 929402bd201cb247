// The routes the fuzzer sends to: every operation of a server's /openapi.json (methods, path and query
// parameters, example bodies, and whether it takes a stamp, the admin token or nothing), read from the
// document alone, so a route added to the server is fuzzed without editing the fuzzer.
// test/fuzz.test.ts checks that they are exactly the operations of the document Signet serves.

type JsonSchema = { [key: string]: unknown };

export type Auth = 'stamp' | 'bearer' | 'none';

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, `{name}` for a path parameter. */
  template: string;
  auth: Auth;
  parameters: Parameter[];
  /** Valid bodies: the operation's examples, or one made from its schema; none without a request body. */
  examples: unknown[];
}

export interface OpenApi {
  paths: Record<string, Record<string, { security?: Array<Record<string, string[]>>; parameters?: unknown[]; requestBody?: unknown }>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string; in?: string; name?: string }> } & Record<string, unknown>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows a local `$ref` (`#/components/...`) to what it names. */
function resolve<T>(document: OpenApi, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 10 && current && typeof current === 'object' && '$ref' in current; hops++) {
    const ref = (current as { $ref: string }).$ref;
    current = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current as T;
}

/** A plausible valid value for a schema, for an operation that has a body but no example. */
function sampleOf(document: OpenApi, given: unknown, depth = 0): unknown {
  const schema = resolve(document, given) as JsonSchema | undefined;
  if (!schema || depth > 8) return null;
  if ('const' in schema) return schema.const;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(schema[key])) return sampleOf(document, (schema[key] as unknown[])[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((schema.required ?? Object.keys(properties)) as string[]);
      return Object.fromEntries(Object.entries(properties).filter(([name]) => required.has(name)).map(([name, property]) => [name, sampleOf(document, property, depth + 1)]));
    }
    case 'array':
      return [sampleOf(document, schema.items, depth + 1)];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'string':
      return schema.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    default:
      return null;
  }
}

/** What authenticates an operation, from its security requirements and the document's security schemes. */
function authOf(document: OpenApi, security: Array<Record<string, string[]>> | undefined): Auth {
  const schemes = document.components?.securitySchemes ?? {};
  for (const requirement of security ?? []) {
    for (const name of Object.keys(requirement)) {
      const scheme = schemes[name];
      if (scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') return 'bearer';
      if (scheme?.type === 'apiKey' && scheme.name?.toLowerCase() === 'x-stamp') return 'stamp';
    }
  }
  return 'none';
}

export function operationsOf(document: OpenApi): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...((item as { parameters?: unknown[] }).parameters ?? []), ...(operation.parameters ?? [])]
        .map((parameter) => resolve(document, parameter) as Parameter)
        .filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
      const body = resolve(document, operation.requestBody) as { content?: Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, unknown> }> } | undefined;
      const media = body?.content?.['application/json'];
      let examples: unknown[] = [];
      if (media) {
        if ('example' in media) examples.push(media.example);
        for (const example of Object.values(media.examples ?? {})) examples.push((resolve(document, example) as { value?: unknown }).value);
        examples = examples.filter((example) => example !== undefined);
        if (examples.length === 0) examples.push(sampleOf(document, media.schema));
      }
      operations.push({ method: method.toUpperCase(), template, auth: authOf(document, operation.security), parameters, examples });
    }
  }
  return operations;
}

/** How the fuzzer labels an operation in its report: "POST /admin/v1/organizations". */
export const labelOf = (operation: Pick<Operation, 'method' | 'template'>) => `${operation.method} ${operation.template}`;
