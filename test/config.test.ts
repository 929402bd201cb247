// Configuration is read in one place and a bad value stops the start with the variable named.
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ALL_SETTINGS, ConfigError, configurationReport, loadConfig } from '../src/config.ts';
import { signet } from './support/processes.ts';

test('defaults match docs/configuration.md', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.dataDir, path.resolve('.signet'));
  assert.equal(config.timestampToleranceMs, 300_000);
  assert.deepEqual(config.webauthnOrigins, ['http://localhost:8080']);
  assert.equal(config.webauthnRpId, 'localhost');
  assert.deepEqual(config.corsOrigins, []);
  assert.deepEqual(config.otpRateLimits, {
    smsPerUser: { count: 5, windowSeconds: 600 },
    smsPerContact: { count: 5, windowSeconds: 3600 },
    emailPerContact: { count: 10, windowSeconds: 3600 },
  });
  assert.equal(config.outboxWorker, true);
  assert.equal(config.maxConnectionsPerAddress, 64);
  assert.equal(config.url, 'http://127.0.0.1:8080');
});

test('each variable is declared once; unset, empty and blank all mean its default, as `signet config` says', () => {
  const names = ALL_SETTINGS.map((setting) => setting.env);
  assert.equal(new Set(names).size, names.length);
  for (const raw of ['', '  ']) {
    const env = { SIGNET_PORT: raw, SIGNET_OUTBOX_WORKER: raw, SIGNET_TRUSTED_PROXIES: raw };
    assert.equal(loadConfig(env).port, 8080);
    assert.equal(loadConfig(env).outboxWorker, true);
    assert.deepEqual(loadConfig(env).trustedProxies, []);
    assert.equal(configurationReport(env).find((setting) => setting.name === 'SIGNET_PORT')!.source, 'default');
  }
});

test('values are parsed', () => {
  const config = loadConfig({
    SIGNET_PORT: '9000',
    SIGNET_DATABASE_URL: 'postgres://u@db:5432/signet',
    SIGNET_WEBAUTHN_ORIGINS: 'https://a.example, https://b.example',
    SIGNET_CORS_ORIGINS: 'https://app.example/, http://localhost:5173',
    SIGNET_RATE_LIMIT_SMS_PER_USER: '3/60',
    SIGNET_OUTBOX_WORKER: 'false',
  });
  assert.deepEqual(config.corsOrigins, ['https://app.example', 'http://localhost:5173']);
  assert.deepEqual(loadConfig({ SIGNET_CORS_ORIGINS: '*' }).corsOrigins, ['*']);
  assert.equal(config.port, 9000);
  assert.equal(config.databaseUrl, 'postgres://u@db:5432/signet');
  assert.deepEqual(config.webauthnOrigins, ['https://a.example', 'https://b.example']);
  assert.deepEqual(config.otpRateLimits.smsPerUser, { count: 3, windowSeconds: 60 });
  assert.equal(config.outboxWorker, false);
  // Issuers are kept as written: a token's iss is compared with them exactly, trailing slash included.
  assert.deepEqual(loadConfig({ SIGNET_OIDC_ISSUERS: 'https://accounts.google.com, https://tenant.example/' }).oidcIssuers, ['https://accounts.google.com', 'https://tenant.example/']);
  assert.deepEqual(loadConfig({}).oidcIssuers, []);
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
    [{ SIGNET_LOG_LEVEL: 'bogus' }, /SIGNET_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "bogus"/],
    [{ SIGNET_HOST: 'not a host!' }, /SIGNET_HOST must be an IP address/],
    [{ SIGNET_ADMIN_HOST: '127.0.0.1, example.com' }, /SIGNET_ADMIN_HOST "example.com" is not an IP address/],
    [{ SIGNET_METRICS_HOST: '10.0.0.0/33' }, /SIGNET_METRICS_HOST "10.0.0.0\/33" has a prefix length/],
    [{ SIGNET_TRUSTED_PROXIES: '*' }, /SIGNET_TRUSTED_PROXIES "\*" is not allowed/],
    [{ SIGNET_WEBAUTHN_ORIGINS: 'https://app.example/login' }, /SIGNET_WEBAUTHN_ORIGINS .* is not an origin/],
    [{ SIGNET_CORS_ORIGINS: 'app.example.com' }, /SIGNET_CORS_ORIGINS "app.example.com" is not an origin/],
    [{ SIGNET_CORS_ORIGINS: 'https://app.example.com/login' }, /SIGNET_CORS_ORIGINS .* did you mean https:\/\/app.example.com\?/],
    [{ SIGNET_CORS_ORIGINS: '*, https://app.example.com' }, /SIGNET_CORS_ORIGINS is either `\*` \(any origin\) or a list of origins, not both/],
    [{ SIGNET_WEBAUTHN_RP_ID: 'https://example.com' }, /SIGNET_WEBAUTHN_RP_ID must be a domain name/],
    [{ SIGNET_EMAIL_FROM: 'nobody' }, /SIGNET_EMAIL_FROM must be an email address/],
    [{ SIGNET_REQUEST_TIMEOUT_MS: '10' }, /SIGNET_REQUEST_TIMEOUT_MS must be a whole number from 1000 to 600000 ms/],
    [{ SIGNET_AUTH_FAILURE_LIMIT: '0/60' }, /SIGNET_AUTH_FAILURE_LIMIT must be COUNT\/SECONDS/],
    [{ SIGNET_MAX_CONNECTIONS_PER_ADDRESS: '-1' }, /SIGNET_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 0 to 100000, got "-1"/],
    [{ SIGNET_MAX_CONNECTIONS_PER_ADDRESS: '100001' }, /SIGNET_MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 0 to 100000/],
    [{ SIGNET_OIDC_ISSUERS: 'http://127.0.0.1:8443' }, /SIGNET_OIDC_ISSUERS "http:\/\/127.0.0.1:8443" must start with https:\/\//],
    [{ SIGNET_OIDC_ISSUERS: 'https://id.example/?tenant=1' }, /SIGNET_OIDC_ISSUERS .* must not have a query/],
    [{ SIGNET_OIDC_ISSUERS: 'accounts.google.com' }, /SIGNET_OIDC_ISSUERS "accounts.google.com" is not a URL/],
  ];
  for (const [env, message] of cases) {
    assert.throws(() => loadConfig(env), (error: unknown) => error instanceof ConfigError && message.test(error.message));
  }
});

test('weak secrets are refused with the rule stated', () => {
  for (const name of ['SIGNET_OTP_SECRET', 'SIGNET_ADMIN_TOKEN']) {
    for (const weak of ['x', 'a', 'correct-horse', 'a'.repeat(64), '0123'.repeat(8), 'abcdefgh'.repeat(3)]) {
      assert.throws(
        () => loadConfig({ [name]: weak }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.startsWith(`${name} is too weak`) &&
          error.message.includes('at least 32 characters with at least 10 different characters'),
        `${name}=${weak}`,
      );
    }
  }
  const strong = 'f3b1c9e07a5d42688e1b0c7d9a3f5e21b4c6d8e0f2a4b6c8d0e2f4a6b8c0d2e4';
  assert.equal(loadConfig({ SIGNET_OTP_SECRET: strong }).otpSecret, strong);
  assert.equal(loadConfig({ SIGNET_ADMIN_TOKEN: 'K2n8Qw4XzT7pL0mV5rY9bC3dF6gH1jA-' }).adminToken, 'K2n8Qw4XzT7pL0mV5rY9bC3dF6gH1jA-');
});

test('every bad variable is named in one message', () => {
  assert.throws(
    () => loadConfig({ SIGNET_PORT: 'x', SIGNET_LOG_LEVEL: 'loud', SIGNET_OTP_SECRET: 'short' }),
    (error: unknown) =>
      error instanceof ConfigError && ['SIGNET_PORT', 'SIGNET_LOG_LEVEL', 'SIGNET_OTP_SECRET'].every((name) => error.message.includes(name)),
  );
});

test('a bad setting stops `signet serve` with exit code 2 and the variable named', async () => {
  for (const [env, name] of [
    [{ SIGNET_OTP_SECRET: 'x' }, 'SIGNET_OTP_SECRET'],
    [{ SIGNET_ADMIN_TOKEN: 'a' }, 'SIGNET_ADMIN_TOKEN'],
    [{ SIGNET_LOG_LEVEL: 'bogus' }, 'SIGNET_LOG_LEVEL'],
  ] as const) {
    const finished = await signet(['serve'], { ...env, SIGNET_PORT: '0', SIGNET_DATA_DIR: path.join(os.tmpdir(), 'signet-config-never-used') });
    assert.equal(finished.code, 2, finished.stderr);
    assert.match(finished.stderr, new RegExp(`configuration error: ${name} `));
  }
});
