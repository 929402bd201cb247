-- Auth proxy configurations: what lets a browser app sign its users up and log them in with no backend
-- of its own (@turnkey/core's authProxyUrl and authProxyConfigId). A configuration belongs to one
-- organization and acts in it as a dedicated user of that organization, with an API key made with it;
-- the key's private half is sealed for the store as wallet key material is (AES-256-GCM under a data key
-- the key-encryption key wraps, bound to the organization, this row's id and the kind
-- 'auth_proxy_api_key'). What the proxy may do is what the organization's root quorum and policies
-- allow that user. allowed_origins are the only origins its routes answer (CORS); methods the sign-up
-- and login methods a page may use; signup_defaults the wallet a new sub-organization gets;
-- otp_settings what init_otp is given (code length, alphanumeric, expiry); session_seconds the
-- session length the wallet kit is told.
CREATE TABLE auth_proxy_configs (
  id                      uuid PRIMARY KEY,
  organization_id         uuid NOT NULL REFERENCES organizations (id),
  user_id                 uuid NOT NULL REFERENCES users (id),
  api_key_id              uuid NOT NULL REFERENCES api_keys (id),
  sealed_api_private_key  text NOT NULL,
  allowed_origins         text[] NOT NULL,
  methods                 text[] NOT NULL,
  signup_defaults         jsonb NOT NULL,
  otp_settings            jsonb NOT NULL,
  session_seconds         integer NOT NULL CHECK (session_seconds > 0),
  created_at              timestamptz NOT NULL
);
-- An organization's configurations, newest first.
CREATE INDEX auth_proxy_configs_organization ON auth_proxy_configs (organization_id, created_at);
