// Who an OTP may be sent to and what may go into a mail header: email addresses, phone numbers in
// E.164, display names. Plain functions, no I/O; each problem is a sentence a client can act on.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

import { MAX_EMAIL_LENGTH, MAX_PHONE_INPUT_LENGTH } from './contactLimits.ts';

export { MAX_EMAIL_LENGTH, MAX_PHONE_INPUT_LENGTH };
const MAX_LOCAL_PART_LENGTH = 64;
const MAX_DOMAIN_LENGTH = 253;
/** Default bound of a display name: long enough for any product name, short enough for a From line. */
export const MAX_HEADER_TEXT_LENGTH = 100;

// C0 controls (CR and LF among them), DEL, C1 controls, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// RFC 5322 atext: none of these characters can end a header, start a second address or open a comment.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
// A top-level domain is letters, or an IDN in its xn-- form; this also keeps out bare IP addresses.
const TOP_LEVEL_DOMAIN = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
// What people type around a phone number; anything else (letters, "ext.", "tel:") is refused.
const PHONE_INPUT = /^\+[0-9 ().-]+$/;

/**
 * Why `value` is not an address Signet will put in a To, From or Reply-To header, or undefined when
 * it is one. Deliberately narrower than RFC 5322: one bare ASCII `local@domain.tld`, no display
 * name, no quoting, no comments, so nothing in it can break a header or add a recipient.
 */
export function emailAddressProblem(value: string): string | undefined {
  if (value.length === 0) return 'is empty; give an email address such as name@example.com';
  if (value.length > MAX_EMAIL_LENGTH) return `is longer than ${MAX_EMAIL_LENGTH} characters`;
  if (CONTROL.test(value)) return 'contains a line break or control character; give one address on one line';
  if (/\s/.test(value)) return 'contains whitespace; give the bare address, e.g. name@example.com';
  if (/[<>]/.test(value)) return 'contains angle brackets; give the bare address without a display name, e.g. name@example.com';
  if (/[,;]/.test(value)) return 'contains a comma or semicolon; give exactly one address';
  if (/["\\()[\]:]/.test(value)) {
    return 'contains a quote, backslash, parenthesis, bracket or colon; quoted names, comments and address literals are not accepted';
  }
  if (/[^\x21-\x7e]/.test(value)) {
    return 'contains non-ASCII characters; internationalised addresses are not supported (give the domain in its xn-- form)';
  }
  const parts = value.split('@');
  if (parts.length !== 2) return 'must contain exactly one @, as in name@example.com';
  const [local, domain] = parts as [string, string];
  if (local.length === 0) return 'has nothing before the @';
  if (local.length > MAX_LOCAL_PART_LENGTH) return `has a part before the @ longer than ${MAX_LOCAL_PART_LENGTH} characters`;
  if (!LOCAL_PART.test(local)) return 'has a part before the @ that starts or ends with a dot or has two dots in a row';
  return domainProblem(domain);
}

/**
 * The one form of an email address that Signet stores, compares, sends to and counts limits by: the
 * whole address in lowercase. Every spelling of a mailbox (`Alice@Example.com`, `ALICE@example.COM`)
 * is one contact, as it is for practically every mail system; giving each its own user, OTP budget
 * or token would multiply them. Takes an address emailAddressProblem accepts (ASCII only, so the
 * lowercase is the same in every locale and in SQL's lower()).
 */
export function canonicalEmailAddress(address: string): string {
  return address.toLowerCase();
}

function domainProblem(domain: string): string | undefined {
  if (domain.length === 0) return 'has no domain after the @';
  if (domain.length > MAX_DOMAIN_LENGTH) return `has a domain longer than ${MAX_DOMAIN_LENGTH} characters`;
  const labels = domain.split('.');
  if (labels.length < 2) return `has a domain without a dot ("${domain}"); give a full domain such as example.com`;
  for (const label of labels) {
    if (!DOMAIN_LABEL.test(label)) {
      return 'has a domain with an empty part, a part longer than 63 characters, a character other than letters, digits and hyphens, or a hyphen at the start or end of a part';
    }
  }
  if (!TOP_LEVEL_DOMAIN.test(labels[labels.length - 1]!)) return 'has a domain whose last part is not a top-level domain';
  return undefined;
}

/**
 * A phone number given in international format (`+`, country code, number; spaces, dots, dashes
 * and parentheses allowed) as E.164, or why it is refused. There is no default country, so the `+`
 * is required. Validity is checked against the full numbering-plan metadata, not just the length.
 */
export function normalizePhoneNumber(value: string): { e164: string } | { problem: string } {
  const text = value.trim();
  if (value.length > MAX_PHONE_INPUT_LENGTH) return { problem: `is longer than ${MAX_PHONE_INPUT_LENGTH} characters` };
  if (text.length === 0) return { problem: 'is empty; give a phone number in international format, e.g. +14155552671' };
  if (!text.startsWith('+')) {
    return { problem: 'must start with + and the country code, e.g. +14155552671 (there is no default country)' };
  }
  if (!PHONE_INPUT.test(text)) {
    return { problem: 'may contain only +, digits, spaces, dots, dashes and parentheses (no extension), e.g. +1 415 555 2671' };
  }
  const parsed = parsePhoneNumberFromString(text);
  if (!parsed || !parsed.isValid()) {
    return { problem: 'is not a valid phone number; check the country code and the number of digits' };
  }
  return { e164: parsed.number };
}

/**
 * Why `value` cannot be a header value such as a display name or a subject's app name, or undefined
 * when it can: one line, no control characters, at most `maxLength` characters. Quoting and
 * encoding of the rest is the mailer's job.
 */
export function headerSafeProblem(value: string, maxLength = MAX_HEADER_TEXT_LENGTH): string | undefined {
  if (value.length > maxLength) return `is longer than ${maxLength} characters`;
  if (/[\r\n\u2028\u2029]/.test(value)) return 'contains a line break; it must be one line';
  if (CONTROL.test(value)) return 'contains a control character; remove it';
  return undefined;
}
