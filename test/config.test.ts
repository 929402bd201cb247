// Configuration is read in one place and a bad value stops the start with the variable named.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults match the README', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.dataDir, path.resolve('.signet'));
  assert.equal(config.timestampToleranceMs, 300_000);
  assert.deepEqual(config.webauthnOrigins, ['http://localhost:8080']);
  assert.equal(config.webauthnRpId, 'localhost');
  assert.deepEqual(config.otpRateLimits, {
    smsPerUser: { count: 5, windowSeconds: 600 },
    smsPerContact: { count: 5, windowSeconds: 3600 },
    emailPerContact: { count: 10, windowSeconds: 3600 },
  });
  assert.equal(config.outboxWorker, true);
  assert.equal(config.url, 'http://127.0.0.1:8080');
});

test('values are parsed', () => {
  const config = loadConfig({
    SIGNET_PORT: '9000',
    SIGNET_DATABASE_URL: 'postgres://u@db:5432/signet',
    SIGNET_WEBAUTHN_ORIGINS: 'https://a.example, https://b.example',
    SIGNET_RATE_LIMIT_SMS_PER_USER: '3/60',
    SIGNET_OUTBOX_WORKER: 'false',
  });
  assert.equal(config.port, 9000);
  assert.equal(config.databaseUrl, 'postgres://u@db:5432/signet');
  assert.deepEqual(config.webauthnOrigins, ['https://a.example', 'https://b.example']);
  assert.deepEqual(config.otpRateLimits.smsPerUser, { count: 3, windowSeconds: 60 });
  assert.equal(config.outboxWorker, false);
});

test('a bad value names its variable', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SIGNET_PORT: 'eighty' }, /SIGNET_PORT/],
    [{ SIGNET_PORT: '70000' }, /SIGNET_PORT/],
    [{ SIGNET_DATABASE_URL: 'mysql://x' }, /SIGNET_DATABASE_URL must start with postgres:/],
    [{ SIGNET_SMTP_URL: 'not a url' }, /SIGNET_SMTP_URL/],
    [{ SIGNET_TIMESTAMP_TOLERANCE_MS: '-1' }, /SIGNET_TIMESTAMP_TOLERANCE_MS/],
    [{ SIGNET_RATE_LIMIT_SMS_PER_USER: '5' }, /SIGNET_RATE_LIMIT_SMS_PER_USER must be COUNT\/SECONDS/],
    [{ SIGNET_OUTBOX_WORKER: 'maybe' }, /SIGNET_OUTBOX_WORKER/],
    [{ SIGNET_SMS_PROVIDER: 'nexmo' }, /SIGNET_SMS_PROVIDER must be one of twilio/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message));
  }
});
