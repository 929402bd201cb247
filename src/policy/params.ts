// activity.params: an activity's intent as policies read it, its field names in snake_case at every
// depth (`otpLength` → `otp_length`), in objects without a prototype so no field is inherited, and
// every Ethereum address in lowercase (ethereumAddress.ts). A JSON number stays a number: an int when
// it is a safe integer; one beyond 2^53 - 1 in size was rounded when the body was read, and is no int
// (integers.ts): comparing it is an evaluation error. None reaches here today (the one number of an
// intent a policy reads, init_otp_auth's otpLength, is 6 to 9). A bigint is an int (a number when it
// is a safe integer). A decimal string stays a string.
import { canonicalValue } from './ethereumAddress.ts';
import { normalizeInt } from './integers.ts';
import type { PolicyValue } from './keywords.ts';

/** `smartContractAddress` → `smart_contract_address`; a run of capitals is one word (`abiJSON` → `abi_json`). */
export function snakeCase(name: string): string {
  return name
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

function convert(value: unknown): PolicyValue {
  if (Array.isArray(value)) return value.map(convert);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, PolicyValue> = Object.create(null);
    for (const [key, field] of Object.entries(value)) {
      if (field !== undefined) out[snakeCase(key)] = convert(field);
    }
    return out;
  }
  if (typeof value === 'string') return canonicalValue(value);
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return normalizeInt(value);
  return null;
}

/**
 * The intent (the activity's `parameters`, already validated and bounded in depth by the HTTP layer)
 * as `activity.params`. A non-object intent gives no fields.
 */
export function paramsForPolicy(intent: unknown): { readonly [field: string]: PolicyValue } {
  if (typeof intent !== 'object' || intent === null || Array.isArray(intent)) return Object.create(null);
  return convert(intent) as { readonly [field: string]: PolicyValue };
}
