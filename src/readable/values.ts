// Decoded values as the policy language holds them: ints exact (a number while safe, a bigint
// beyond: policy/integers.ts), everything else as it is.
import type { DecodedValue } from '../contracts/decodeEthereumCall.ts';
import type { IdlValue } from '../contracts/decodeSolanaInstruction.ts';
import { normalizeInt, type PolicyValue } from '../policy/index.ts';

export function policyValue(value: DecodedValue | IdlValue): PolicyValue {
  if (typeof value === 'bigint') return normalizeInt(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(policyValue);
  const map: Record<string, PolicyValue> = {};
  for (const [name, item] of Object.entries(value as Record<string, DecodedValue | IdlValue>)) map[name] = policyValue(item);
  return map;
}

/** A value in one line of text (the readable summary's), at most `limit` characters. */
export function valueText(value: unknown, limit = 200): string {
  const text = render(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function render(value: unknown, depth = 0): string {
  if (depth > 8) return '…';
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'none';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.slice(0, 20).map((item) => render(item, depth + 1)).join(', ')}${value.length > 20 ? ', …' : ''}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).slice(0, 20).map(([name, item]) => `${name}: ${render(item, depth + 1)}`).join(', ')}}`;
  }
  return '';
}
