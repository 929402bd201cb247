// JWT header and payload segments that the @turnkey client libraries can read: their decoders drop
// (core's @turnkey/encoding atob) or reject (the browser's atob) the base64url letters - and _.

// In base64 of ASCII text, 62 and 63 (- and _) come only from the last six bits of a byte
// 0x3e/0x3f/0x7e/0x7f (> ? ~ DEL) at offset 2 of a group of three, or from bytes above 0x7f. JSON
// may spell any character as \uXXXX, so spelling those out removes every - and _ while every
// JSON parser reads back the same values.
const UNSAFE = /[>?~\u007f-\uffff]/g;

/** JSON of `value` with the characters whose base64 could contain - or _ written as \uXXXX escapes. */
export function base64SafeJson(value: object): string {
  return JSON.stringify(value).replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JWT segment (header or payload): base64url without padding of base64SafeJson(value). */
export function jwtSegment(value: object): string {
  return Buffer.from(base64SafeJson(value), 'utf8').toString('base64url');
}
