-- Service signing keys (verify_otp's verification tokens). Public halves are served at
-- /.well-known/jwks.json; private halves are stored only encrypted under the deployment secret.

CREATE TABLE signing_keys (
  -- RFC 7638 thumbprint of the public JWK, used as the token header's kid.
  kid                    text PRIMARY KEY,
  -- What the key signs, e.g. 'verification-token'.
  purpose                text NOT NULL,
  algorithm              text NOT NULL,
  public_jwk             jsonb NOT NULL,
  -- PKCS#8 DER, sealed with AES-256-GCM under a key derived from the deployment secret (kid as
  -- associated data), base64url: a database dump alone cannot mint tokens.
  encrypted_private_key  text NOT NULL,
  created_at             timestamptz NOT NULL DEFAULT now(),
  -- Set when a newer key takes over signing; a retired key stays in the JWKS until deleted, so
  -- tokens it signed keep verifying.
  retired_at             timestamptz
);

-- One signing key per purpose at a time: the target of the lazy creation's ON CONFLICT, which makes
-- concurrent first uses from several processes agree on one key.
CREATE UNIQUE INDEX signing_keys_active_purpose ON signing_keys (purpose) WHERE retired_at IS NULL;
