// The longest contact a request may carry, apart from contact.ts's checks so that the admin API's
// declaration (and with it every \`signet\` command) reads them without loading the phone number
// metadata.

/** Longest address that fits an SMTP path (RFC 5321: 256 octets including the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest phone number as typed, with spaces and punctuation; E.164 itself is at most 16. */
export const MAX_PHONE_INPUT_LENGTH = 32;
