// Contact rules: which email addresses and phone numbers are accepted, the one form of an email
// address, how phone numbers become E.164, and which display names are safe in a mail header.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalEmailAddress, emailAddressProblem, headerSafeProblem, normalizePhoneNumber } from '../src/otp/contact.ts';

describe('canonicalEmailAddress', () => {
  test('every spelling of an address is one: the whole address in lowercase', () => {
    for (const spelling of ['victim@example.com', 'Victim@example.com', 'VICTIM@EXAMPLE.COM', 'victim@EXAMPLE.com', 'vIcTiM@Example.Com']) {
      assert.equal(emailAddressProblem(spelling), undefined, spelling);
      assert.equal(canonicalEmailAddress(spelling), 'victim@example.com', spelling);
    }
    // Nothing but the letters changes.
    assert.equal(canonicalEmailAddress("O'Brien+OTP_1@Mail.Example.CO.UK"), "o'brien+otp_1@mail.example.co.uk");
    assert.equal(canonicalEmailAddress('admin@XN--BCHER-KVA.example'), 'admin@xn--bcher-kva.example');
  });
});

describe('emailAddressProblem', () => {
  test('accepts ordinary addresses', () => {
    for (const address of [
      'alice@example.com',
      'Alice.Smith@Example.COM',
      'o\'brien+otp@mail.example.co.uk',
      'x@a.io',
      'user_name-1@sub-domain.example.org',
      'admin@xn--bcher-kva.example',
      `${'a'.repeat(64)}@example.com`,
    ]) {
      assert.equal(emailAddressProblem(address), undefined, address);
    }
  });

  test('refuses header injection and second recipients', () => {
    for (const address of [
      'alice@example.com\r\nBcc: victim@example.com',
      'alice@example.com\nBcc: victim@example.com',
      'alice@example.com\r',
      'alice@exa\u0000mple.com',
      'alice@example.com\u2028',
      'alice@example.com,bob@example.com',
      'alice@example.com;bob@example.com',
      'Alice <alice@example.com>',
      '<alice@example.com>',
      '"alice"@example.com',
      'alice@example.com (Alice)',
      'alice@[192.0.2.1]',
      'alice@example.com\\',
    ]) {
      assert.ok(emailAddressProblem(address), JSON.stringify(address));
    }
  });

  test('refuses malformed addresses with a reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /empty/],
      ['alice', /exactly one @/],
      ['alice@bob@example.com', /exactly one @/],
      ['@example.com', /nothing before the @/],
      ['alice@', /no domain/],
      ['alice@localhost', /without a dot/],
      ['alice@example', /without a dot/],
      ['alice@192.0.2.1', /top-level domain/],
      ['alice@example.c0m', /top-level domain/],
      ['alice@-example.com', /hyphen/],
      ['alice@example..com', /empty part/],
      ['.alice@example.com', /dot/],
      ['alice.@example.com', /dot/],
      ['al..ice@example.com', /dot/],
      [' alice@example.com', /whitespace/],
      ['alice @example.com', /whitespace/],
      ['alice@example.com\t', /control/],
      ['alicé@example.com', /non-ASCII/],
      [`${'a'.repeat(65)}@example.com`, /longer than 64/],
      [`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}.com`, /longer than 254/],
      [`a@${'b'.repeat(64)}.com`, /longer than 63/],
    ];
    for (const [address, reason] of cases) {
      assert.match(emailAddressProblem(address) ?? 'accepted', reason, JSON.stringify(address));
    }
  });

  test('the length bound is 254 characters', () => {
    const address = (third: number) => `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(third)}.com`;
    assert.equal(address(57).length, 254);
    assert.equal(emailAddressProblem(address(57)), undefined);
    assert.match(emailAddressProblem(address(58)) ?? '', /longer than 254/);
  });
});

describe('normalizePhoneNumber', () => {
  test('valid US, UK and German numbers become E.164 from spaced, dashed and bracketed input', () => {
    const cases: Array<[string, string]> = [
      ['+1 (415) 555-2671', '+14155552671'],
      ['+1-415-555-2671', '+14155552671'],
      ['+1.415.555.2671', '+14155552671'],
      ['+14155552671', '+14155552671'],
      ['+44 20 7946 0958', '+442079460958'],
      ['+44 (0) 20 7946 0958', '+442079460958'],
      ['+44 7911 123456', '+447911123456'],
      ['+49 30 901820', '+4930901820'],
      ['+49 151 2345 6789', '+4915123456789'],
      ['  +49-30-901820  ', '+4930901820'],
    ];
    for (const [input, e164] of cases) assert.deepEqual(normalizePhoneNumber(input), { e164 }, input);
  });

  test('refuses numbers without +, invalid numbers and anything that is not a number', () => {
    const cases: Array<[string, RegExp]> = [
      ['14155552671', /must start with \+/],
      ['(415) 555-2671', /must start with \+/],
      ['004930901820', /must start with \+/],
      ['', /empty/],
      ['+1 555 555 5555', /not a valid phone number/],
      ['+1 415 555 267', /not a valid phone number/],
      ['+44 20 7946', /not a valid phone number/],
      ['+999 123456789', /not a valid phone number/],
      ['+12', /not a valid phone number/],
      ['+1 415 555 2671 ext. 5', /only \+, digits/],
      ['+1 415 555 2671\nBcc: x', /only \+, digits/],
      ['+1 415 CALL NOW', /only \+, digits/],
      ['tel:+14155552671', /must start with \+/],
      ['alice@example.com', /must start with \+/],
      [`+1 ${'4'.repeat(40)}`, /longer than 32/],
    ];
    for (const [input, reason] of cases) {
      const result = normalizePhoneNumber(input);
      assert.ok('problem' in result, `${JSON.stringify(input)} was accepted as ${JSON.stringify(result)}`);
      assert.match(result.problem, reason, JSON.stringify(input));
    }
  });
});

describe('headerSafeProblem', () => {
  test('accepts one line of text, quotes and non-ASCII included (the mailer encodes them)', () => {
    for (const name of ['Notifications', 'Acme "Security" Team', 'Zürich Wallet', 'A <b>', 'x'.repeat(100)]) {
      assert.equal(headerSafeProblem(name), undefined, name);
    }
  });

  test('refuses line breaks, control characters and overlong values', () => {
    assert.match(headerSafeProblem('Evil\r\nBcc: victim@example.com') ?? '', /line break/);
    assert.match(headerSafeProblem('Evil\nBcc: victim@example.com') ?? '', /line break/);
    assert.match(headerSafeProblem('Evil\rX') ?? '', /line break/);
    assert.match(headerSafeProblem('Evil\u2028X') ?? '', /line break/);
    assert.match(headerSafeProblem('Tab\there') ?? '', /control character/);
    assert.match(headerSafeProblem('Nul\u0000') ?? '', /control character/);
    assert.match(headerSafeProblem('C1\u0085') ?? '', /control character/);
    assert.match(headerSafeProblem('x'.repeat(101)) ?? '', /longer than 100/);
    assert.equal(headerSafeProblem('x'.repeat(150), 200), undefined);
  });
});
