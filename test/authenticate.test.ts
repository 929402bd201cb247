// authenticate() on each test store: API keys and passkeys found, checked for revocation, expiry and
// organization, and the WebAuthn counter advanced once only (a replayed assertion is refused).
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateApiKeyPair, type ApiKeyPair } from '../src/admin/organizations.ts';
import { authenticate, type Principal } from '../src/auth/authenticate.ts';
import { parseStamp, type Stamp, type WebAuthnStamp } from '../src/auth/parseStamp.ts';
import { verifyAuthenticatorRegistration } from '../src/keys/verifyAuthenticatorRegistration.ts';
import { SignetError } from '../src/errors.ts';
import type { Database, Queryable } from '../src/store/db.ts';
import { testDatabases } from './support/databases.ts';
import { createSoftwareAuthenticator, webauthnStamperFor, type SoftwareAuthenticator } from './support/softwareAuthenticator.ts';

const rpId = 'localhost';
const origin = 'http://localhost:8080';
const now = new Date('2026-01-01T00:00:00Z');
const options = { origins: [origin], rpId, now };

function rejected(status: number, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SignetError, `not a SignetError: ${String(error)}`);
    assert.equal(error.status, status);
    assert.match(error.message, pattern);
    return true;
  };
}

function bodyFor(organizationId: string, nonce: string = randomUUID()): Buffer {
  return Buffer.from(
    JSON.stringify({ type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3', timestampMs: String(now.getTime()), organizationId, parameters: { nonce } }),
  );
}

async function apiKeyStamp(pair: ApiKeyPair, body: Buffer): Promise<Stamp> {
  const stamper = new ApiKeyStamper({ apiPublicKey: pair.apiPublicKey, apiPrivateKey: pair.apiPrivateKey });
  const { stampHeaderValue } = await stamper.stamp(body.toString('utf8'));
  return parseStamp({ 'x-stamp': stampHeaderValue });
}

function webauthnStamp(authenticator: SoftwareAuthenticator, body: Buffer, counter?: number): WebAuthnStamp {
  const challenge = new TextEncoder().encode(createHash('sha256').update(body).digest('hex'));
  return { kind: 'webauthn', ...authenticator.assert(challenge, counter === undefined ? {} : { counter }) };
}

for (const tdb of testDatabases) {
  describe(`authenticate (${tdb.name})`, () => {
    let db: Database;
    const orgA = randomUUID();
    const orgB = randomUUID();
    const userA = randomUUID();
    const userB = randomUUID();
    // The user's contacts and times come with the credential, for the votes.
    const aliceCreatedAt = new Date('2025-12-01T10:00:00.123Z');
    const aliceUpdatedAt = new Date('2025-12-02T11:00:00.456Z');
    const active = generateApiKeyPair();
    const revoked = generateApiKeyPair();
    const expired = generateApiKeyPair();
    const expiresLater = generateApiKeyPair();
    const ofOrgB = generateApiKeyPair();
    const inBoth = generateApiKeyPair(); // revoked in A, live in B
    const unknown = generateApiKeyPair();
    let passkey: SoftwareAuthenticator;
    let passkeyB: SoftwareAuthenticator;
    let revokedPasskey: SoftwareAuthenticator;

    const apiKeyIds = new Map<ApiKeyPair, string>();
    async function insertApiKey(organizationId: string, userId: string, pair: ApiKeyPair, extra: { expiresAt?: Date; revokedAt?: Date } = {}) {
      const id = randomUUID();
      apiKeyIds.set(pair, id);
      await db.query(
        `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, expires_at, revoked_at)
         VALUES ($1, $2, $3, 'test key', $4, $5, $6)`,
        [id, organizationId, userId, pair.apiPublicKey, extra.expiresAt ?? null, extra.revokedAt ?? null],
      );
    }

    async function insertPasskey(organizationId: string, userId: string, revokedAt: Date | null = null) {
      const authenticator = createSoftwareAuthenticator({ rpId, origin });
      const challenge = Buffer.from(randomUUID()).toString('base64url');
      const credential = await verifyAuthenticatorRegistration(authenticator.register(challenge), {
        expectedChallenge: challenge,
        origins: [origin],
        rpId,
      });
      await db.query(
        `INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, sign_count, transports, aaguid, revoked_at)
         VALUES ($1, $2, $3, 'passkey', $4, $5, $6, $7, $8, $9)`,
        [randomUUID(), organizationId, userId, credential.credentialId, Buffer.from(credential.publicKey),
          credential.signCount, credential.transports, credential.aaguid, revokedAt],
      );
      return authenticator;
    }

    async function signCount(authenticator: SoftwareAuthenticator): Promise<number> {
      const [row] = await db.query<{ sign_count: number }>('SELECT sign_count FROM authenticators WHERE credential_id = $1', [
        authenticator.credentialId,
      ]);
      return Number(row!.sign_count);
    }

    before(async () => {
      db = await tdb.open();
      await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'A'), ($2, 'B')`, [orgA, orgB]);
      await db.query(
        `INSERT INTO users (id, organization_id, user_name, email, phone_number, created_at, updated_at)
         VALUES ($1, $2, 'alice', 'Alice@Example.com', '+14155552671', $5, $6), ($3, $4, 'bob', NULL, NULL, $5, $5)`,
        [userA, orgA, userB, orgB, aliceCreatedAt, aliceUpdatedAt],
      );
      await insertApiKey(orgA, userA, active);
      await insertApiKey(orgA, userA, revoked, { revokedAt: new Date(now.getTime() - 60_000) });
      await insertApiKey(orgA, userA, expired, { expiresAt: now });
      await insertApiKey(orgA, userA, expiresLater, { expiresAt: new Date(now.getTime() + 1) });
      await insertApiKey(orgB, userB, ofOrgB);
      await insertApiKey(orgA, userA, inBoth, { revokedAt: new Date(now.getTime() - 60_000) });
      await insertApiKey(orgB, userB, inBoth);
      passkey = await insertPasskey(orgA, userA);
      passkeyB = await insertPasskey(orgB, userB);
      revokedPasskey = await insertPasskey(orgA, userA, new Date(now.getTime() - 60_000));
    });
    after(() => db.close());

    describe('API keys', () => {
      test('a live key of the organization authenticates its user', async () => {
        const body = bodyFor(orgA);
        const stamp = await apiKeyStamp(active, body);
        const principal = await authenticate(db, body, stamp, orgA, options);
        assert.deepEqual(principal, {
          organizationId: orgA,
          userId: userA,
          userName: 'alice',
          userEmail: 'Alice@Example.com',
          userPhoneNumber: '+14155552671',
          userCreatedAt: aliceCreatedAt,
          userUpdatedAt: aliceUpdatedAt,
          scheme: 'SIGNATURE_SCHEME_TK_API_P256',
          publicKey: active.apiPublicKey,
          signature: stamp.kind === 'apiKey' ? stamp.signature : '',
          credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
          credential: { kind: 'apiKey', apiKeyId: apiKeyIds.get(active)!, now },
        } satisfies Principal);
      });

      test('the organization id matches in any letter case; a key expiring after now is live', async () => {
        const body = bodyFor(orgA);
        const principal = await authenticate(db, body, await apiKeyStamp(active, body), orgA.toUpperCase(), options);
        assert.equal(principal.organizationId, orgA);
        const later = await authenticate(db, body, await apiKeyStamp(expiresLater, body), orgA, options);
        assert.equal(later.userId, userA);
      });

      test('an unknown key is 401', async () => {
        const body = bodyFor(orgA);
        await assert.rejects(authenticate(db, body, await apiKeyStamp(unknown, body), orgA, options), rejected(401, /^unknown API key/));
      });

      test('a revoked key is 401', async () => {
        const body = bodyFor(orgA);
        await assert.rejects(authenticate(db, body, await apiKeyStamp(revoked, body), orgA, options), rejected(401, /^API key revoked/));
      });

      test('an expired key is 401 (expires_at ≤ now)', async () => {
        const body = bodyFor(orgA);
        await assert.rejects(authenticate(db, body, await apiKeyStamp(expired, body), orgA, options), rejected(401, /^API key expired/));
        await assert.rejects(
          authenticate(db, body, await apiKeyStamp(expiresLater, body), orgA, { ...options, now: new Date(now.getTime() + 1) }),
          rejected(401, /^API key expired/),
        );
      });

      test('a key of another organization is 403', async () => {
        const body = bodyFor(orgA);
        await assert.rejects(
          authenticate(db, body, await apiKeyStamp(ofOrgB, body), orgA, options),
          rejected(403, new RegExp(`^this credential does not belong to organization ${orgA}`)),
        );
      });

      test('a key registered in two organizations is judged by the row of the requested one', async () => {
        const body = bodyFor(orgB);
        const stamp = await apiKeyStamp(inBoth, body);
        assert.equal((await authenticate(db, body, stamp, orgB, options)).userId, userB);
        await assert.rejects(authenticate(db, body, stamp, orgA, options), rejected(401, /^API key revoked/));
      });

      test('an organization id that is not a UUID is 403, not a database error', async () => {
        const body = bodyFor(orgA);
        for (const organizationId of ['not-a-uuid', '', "'; DROP TABLE api_keys; --"]) {
          await assert.rejects(
            authenticate(db, body, await apiKeyStamp(active, body), organizationId, options),
            rejected(403, /this credential does not belong to organization/),
          );
        }
      });

      test('a bad signature is 401 before any key lookup', async () => {
        const body = bodyFor(orgA);
        const stamp = await apiKeyStamp(active, body);
        const noDatabase: Queryable = {
          query: () => Promise.reject(new Error('the database must not be asked')),
          exec: () => Promise.reject(new Error('the database must not be asked')),
        };
        await assert.rejects(authenticate(noDatabase, bodyFor(orgA), stamp, orgA, options), rejected(401, /does not verify/));
      });
    });

    describe('WebAuthn', () => {
      test('a passkey of the organization authenticates its user and advances the counter', async () => {
        const body = bodyFor(orgA);
        const before = await signCount(passkey);
        const stamp = webauthnStamp(passkey, body);
        const principal = await authenticate(db, body, stamp, orgA, options);
        const [row] = await db.query<{ id: string; public_key: Uint8Array }>('SELECT id, public_key FROM authenticators WHERE credential_id = $1', [
          passkey.credentialId,
        ]);
        assert.deepEqual(principal, {
          organizationId: orgA,
          userId: userA,
          userName: 'alice',
          userEmail: 'Alice@Example.com',
          userPhoneNumber: '+14155552671',
          userCreatedAt: aliceCreatedAt,
          userUpdatedAt: aliceUpdatedAt,
          scheme: 'SIGNATURE_SCHEME_WEBAUTHN',
          publicKey: Buffer.from(row!.public_key).toString('hex'),
          signature: stamp.signature,
          credentialId: passkey.credentialId,
          credentialType: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
          credential: { kind: 'authenticator', authenticatorId: row!.id },
          // What the signature covers besides the body, kept with the votes it stamps.
          webauthn: { authenticatorData: stamp.authenticatorData, clientDataJson: stamp.clientDataJson },
        } satisfies Principal);
        assert.equal(await signCount(passkey), passkey.counter);
        assert.ok(passkey.counter > before);
      });

      test('a stamp from the real WebauthnStamper authenticates', async () => {
        const body = bodyFor(orgA);
        const { stampHeaderName, stampHeaderValue } = await webauthnStamperFor(passkey).stamp(body.toString('utf8'));
        const stamp = parseStamp({ [stampHeaderName.toLowerCase()]: stampHeaderValue });
        assert.equal((await authenticate(db, body, stamp, orgA, options)).credentialId, passkey.credentialId);
        assert.equal(await signCount(passkey), passkey.counter);
      });

      test('the same assertion twice: the second is 401', async () => {
        const body = bodyFor(orgA);
        const stamp = webauthnStamp(passkey, body);
        await authenticate(db, body, stamp, orgA, options);
        await assert.rejects(authenticate(db, body, stamp, orgA, options), rejected(401, /^counter went backwards/));
      });

      test('a replay racing the first use is refused by the counter compare-and-set', async () => {
        const body = bodyFor(orgA);
        const stamp = webauthnStamp(passkey, body);
        // The replay reads the authenticator row, then the original completes before the replay writes.
        let original: Promise<Principal> | undefined;
        const racing: Queryable = {
          async query<T>(sql: string, params?: unknown[]) {
            const rows = await db.query<T>(sql, params);
            if (!original && sql.includes('FROM authenticators')) {
              original = authenticate(db, body, stamp, orgA, options);
              await original;
            }
            return rows;
          },
          exec: (sql: string) => db.exec(sql),
        };
        await assert.rejects(authenticate(racing, body, stamp, orgA, options), rejected(401, /^replayed assertion/));
        assert.equal((await original!).userId, userA);
        assert.equal(await signCount(passkey), passkey.counter);
      });

      test('concurrent submissions of one assertion: exactly one passes', async () => {
        const body = bodyFor(orgA);
        const stamp = webauthnStamp(passkey, body);
        const outcomes = await Promise.allSettled([1, 2, 3].map(() => authenticate(db, body, stamp, orgA, options)));
        assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') rejected(401, /^replayed assertion|^counter went backwards/)(outcome.reason);
        }
      });

      test('an authenticator without a counter passes while its counter stays 0', async () => {
        const counterless = await insertPasskey(orgA, userA);
        const body = bodyFor(orgA);
        await authenticate(db, body, webauthnStamp(counterless, body, 0), orgA, options);
        await authenticate(db, body, webauthnStamp(counterless, body, 0), orgA, options);
        assert.equal(await signCount(counterless), 0);
      });

      test('an unknown credential is 401', async () => {
        const stranger = createSoftwareAuthenticator({ rpId, origin });
        const body = bodyFor(orgA);
        await assert.rejects(authenticate(db, body, webauthnStamp(stranger, body), orgA, options), rejected(401, /^unknown WebAuthn credential/));
      });

      test('a revoked credential is 401', async () => {
        const body = bodyFor(orgA);
        await assert.rejects(
          authenticate(db, body, webauthnStamp(revokedPasskey, body), orgA, options),
          rejected(401, /^WebAuthn credential revoked/),
        );
      });

      test('a passkey of another organization is 403 and leaves its counter alone', async () => {
        const body = bodyFor(orgA);
        const before = await signCount(passkeyB);
        await assert.rejects(
          authenticate(db, body, webauthnStamp(passkeyB, body), orgA, options),
          rejected(403, new RegExp(`^this credential does not belong to organization ${orgA}`)),
        );
        await assert.rejects(
          authenticate(db, body, webauthnStamp(passkeyB, body), 'not-a-uuid', options),
          rejected(403, /does not belong to organization not-a-uuid/),
        );
        assert.equal(await signCount(passkeyB), before);
        // Its own organization still accepts it.
        const principal = await authenticate(db, body, webauthnStamp(passkeyB, body), orgB, options);
        assert.equal(principal.userName, 'bob');
      });

      test('a bad WebAuthn signature is 401 and leaves the counter alone', async () => {
        const body = bodyFor(orgA);
        const before = await signCount(passkey);
        const stamp = webauthnStamp(passkey, bodyFor(orgA, 'another nonce'));
        await assert.rejects(authenticate(db, body, stamp, orgA, options), rejected(401, /^wrong challenge/));
        const good = webauthnStamp(passkey, body);
        const signature = Buffer.from(good.signature, 'base64url');
        signature[8]! ^= 0x40; // inside r: still DER, no longer the signature
        await assert.rejects(
          authenticate(db, body, { ...good, signature: signature.toString('base64url') }, orgA, options),
          rejected(401, /^bad signature/),
        );
        assert.equal(await signCount(passkey), before);
      });
    });
  });
}
