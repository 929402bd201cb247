// Rules for a Solana program interface: an Anchor IDL, in the format of Anchor 0.30 and later
// (`address`, `metadata`) or of earlier versions (`version`, `name`). Pure functions; problems
// name the JSON path they are about.
import { z } from 'zod';
import { solanaAddressProblem } from './address.ts';
import { describeJsonType, quoteJson, required } from './schemaMessages.ts';

/** Type names of both formats (`publicKey` before Anchor 0.30, `pubkey` after). */
export const IDL_PRIMITIVE_TYPES = [
  'bool', 'u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'f32', 'u64', 'i64', 'f64',
  'u128', 'i128', 'u256', 'i256', 'bytes', 'string', 'pubkey', 'publicKey',
] as const;

/** Bounds for the two recursive parts, so that validation stays well inside the call stack. */
export const MAX_IDL_TYPE_DEPTH = 32;
export const MAX_ACCOUNT_GROUP_DEPTH = 16;

/** Problems with an IDL, each as `path: what is wrong`; empty when the IDL is valid. */
export function solanaIdlProblems(value: unknown): string[] {
  const parsed = idlSchema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const path = z.core.toDotPath(issue.path);
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
}

interface TypeProblem {
  /** Relative to the type being checked. */
  path: (string | number)[];
  message: string;
}

const TYPE_FORMS = '{"vec": T}, {"option": T}, {"coption": T}, {"array": [T, length]}, {"defined": …} or {"generic": "T"}';

/** Problem with an IDL type (`"u64"`, `{"vec": "u8"}`, `{"defined": {"name": "Config"}}`), or undefined. */
export function idlTypeProblem(type: unknown, depth = 0): TypeProblem | undefined {
  if (depth > MAX_IDL_TYPE_DEPTH) return { path: [], message: `types may be nested at most ${MAX_IDL_TYPE_DEPTH} levels deep` };
  if (typeof type === 'string') {
    if ((IDL_PRIMITIVE_TYPES as readonly string[]).includes(type)) return undefined;
    return {
      path: [],
      message: `${quoteJson(type)} is not an IDL type; use one of ${IDL_PRIMITIVE_TYPES.join(', ')}, or ${TYPE_FORMS} for other types`,
    };
  }
  if (!isObject(type)) return { path: [], message: `must be a type name or a type object such as ${TYPE_FORMS}, got ${describeJsonType(type)}` };
  const keys = Object.keys(type);
  if (keys.length !== 1) {
    return { path: [], message: `a type object has exactly one key naming its form (${TYPE_FORMS}); this one has ${keys.length}` };
  }
  const form = keys[0]!;
  const inner = type[form];
  const within = (problem: TypeProblem | undefined, ...path: (string | number)[]) =>
    problem && { path: [...path, ...problem.path], message: problem.message };

  switch (form) {
    case 'vec':
    case 'option':
    case 'coption':
      return within(idlTypeProblem(inner, depth + 1), form);
    case 'array': {
      if (!Array.isArray(inner) || inner.length !== 2) {
        return { path: [form], message: 'must be [element type, length], e.g. ["u8", 32]' };
      }
      const [element, length] = inner as [unknown, unknown];
      const lengthIsGeneric = isObject(length) && typeof length.generic === 'string' && length.generic !== '';
      if (!lengthIsGeneric && !(Number.isSafeInteger(length) && (length as number) >= 0)) {
        return { path: [form, 1], message: 'the array length must be a whole number (or {"generic": "N"})' };
      }
      return within(idlTypeProblem(element, depth + 1), form, 0);
    }
    case 'defined':
      // A name before Anchor 0.30; {name, generics?} after.
      if (typeof inner === 'string' && inner !== '') return undefined;
      if (isObject(inner) && typeof inner.name === 'string' && inner.name !== '') {
        if (inner.generics !== undefined && !Array.isArray(inner.generics)) {
          return { path: [form, 'generics'], message: 'must be an array of generic arguments' };
        }
        return undefined;
      }
      return { path: [form], message: 'must name a type defined in the IDL: "Name" or {"name": "Name"}' };
    case 'generic':
      if (typeof inner === 'string' && inner !== '') return undefined;
      return { path: [form], message: 'must be the name of a generic parameter' };
    default:
      return { path: [], message: `${quoteJson(form)} is not an IDL type form; use ${TYPE_FORMS}` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const name = (what: string) =>
  z.string({ error: required(what, 'a string') }).min(1, { error: `must not be empty: ${what}` });

const list = (item: z.ZodType, what: string) => z.array(item, { error: required(what, 'an array') });

const optionalList = (item: z.ZodType, what: string) =>
  z.array(item, { error: (issue) => `must be an array of ${what} when present, got ${describeJsonType(issue.input)}` }).optional();

const flag = () => z.boolean({ error: (issue) => `must be true or false, got ${describeJsonType(issue.input)}` }).optional();

const idlType = z.unknown().superRefine((type, ctx) => {
  if (type === undefined) {
    ctx.addIssue({ code: 'custom', path: [], message: 'is required: an IDL type such as "u64" or {"vec": "u8"}' });
    return;
  }
  const problem = idlTypeProblem(type);
  if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

const discriminator = z
  .array(z.int().min(0).max(255), { error: (issue) => `must be an array of bytes (whole numbers 0 to 255), got ${describeJsonType(issue.input)}` })
  .min(1, { error: 'must not be empty' })
  .optional();

// Account groups nest (an instruction's accounts may include a group with its own accounts); one
// schema per level rather than z.lazy, so that too deep a nesting meets a rule, not the stack end.
function accountSchema(depth: number): z.ZodType {
  return z.looseObject(
    {
      name: name("the account's name"),
      accounts:
        depth < MAX_ACCOUNT_GROUP_DEPTH
          ? optionalList(accountSchema(depth + 1), 'accounts')
          : z.never({ error: `account groups may be nested at most ${MAX_ACCOUNT_GROUP_DEPTH} levels deep` }).optional(),
      // Before Anchor 0.30:
      isMut: flag(),
      isSigner: flag(),
      isOptional: flag(),
      // Anchor 0.30 and later:
      writable: flag(),
      signer: flag(),
      optional: flag(),
    },
    { error: (issue) => `each account must be a JSON object with a name, got ${describeJsonType(issue.input)}` },
  );
}

const field = z.looseObject(
  { name: name("the argument's name"), type: idlType },
  { error: (issue) => `each argument must be a JSON object with a name and a type, got ${describeJsonType(issue.input)}` },
);

const instruction = z.looseObject(
  {
    name: name("the instruction's name"),
    discriminator,
    accounts: list(accountSchema(0), 'the accounts the instruction takes (may be empty)'),
    args: list(field, 'the arguments the instruction takes (may be empty)'),
    returns: idlType.optional(),
  },
  { error: (issue) => `each instruction must be a JSON object, got ${describeJsonType(issue.input)}` },
);

const namedItem = z.looseObject(
  { name: name('the name of the item') },
  { error: (issue) => `each item must be a JSON object with a name, got ${describeJsonType(issue.input)}` },
);

const errorCode = z.looseObject(
  {
    code: z.int({ error: required('the numeric error code', 'a whole number') }),
    name: name("the error's name"),
    msg: z.string({ error: (issue) => `must be a string, got ${describeJsonType(issue.input)}` }).optional(),
  },
  { error: (issue) => `each error must be a JSON object with a code and a name, got ${describeJsonType(issue.input)}` },
);

const FORMATS = 'address and metadata (Anchor 0.30 and later) or version and name (earlier Anchor versions)';

// Keys beyond these (docs, state, …) are kept, not judged.
const idlSchema = z
  .looseObject(
    {
      instructions: list(instruction, 'the array of the program\'s instructions'),
      accounts: optionalList(namedItem, 'accounts'),
      types: optionalList(namedItem, 'types'),
      events: optionalList(namedItem, 'events'),
      errors: optionalList(errorCode, 'errors'),
      constants: optionalList(namedItem, 'constants'),
    },
    {
      error: (issue) =>
        Array.isArray(issue.input)
          ? 'a Solana IDL is a JSON object with instructions, and this is an array (an Ethereum ABI is an array)'
          : `a Solana IDL must be a JSON object with instructions, got ${describeJsonType(issue.input)}`,
    },
  )
  .superRefine(
    (idl, ctx) => {
      // Which format: the 0.30 spec moved name and version under metadata and added address.
      const metadata = idl.metadata;
      const modern = 'address' in idl || (isObject(metadata) && 'spec' in metadata);
      const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });

      if (modern) {
        if (typeof idl.address !== 'string') {
          issue(['address'], idl.address === undefined ? "is required: the program's address" : 'must be a string');
        } else {
          const problem = solanaAddressProblem(idl.address);
          if (problem) issue(['address'], problem);
        }
        if (!isObject(metadata)) {
          issue(['metadata'], metadata === undefined ? 'is required: an object with name, version and spec' : 'must be an object with name, version and spec');
        } else {
          for (const key of ['name', 'version', 'spec']) {
            if (typeof metadata[key] !== 'string' || metadata[key] === '') issue(['metadata', key], 'must be a non-empty string');
          }
        }
        // Decoding finds an instruction by its discriminator, which this format always states.
        if (Array.isArray(idl.instructions)) {
          idl.instructions.forEach((item: unknown, index: number) => {
            if (isObject(item) && item.discriminator === undefined) {
              issue(['instructions', index, 'discriminator'], 'is required in the Anchor 0.30 format: the bytes that select the instruction');
            }
          });
        }
      } else if ('version' in idl || 'name' in idl) {
        for (const key of ['version', 'name']) {
          if (typeof idl[key] !== 'string' || idl[key] === '') issue([key], 'must be a non-empty string');
        }
      } else {
        issue([], `an Anchor IDL needs at its top level either ${FORMATS}`);
      }
    },
    // Report format problems together with the others, not only once the rest is valid.
    { when: (payload) => isObject(payload.value) },
  );
