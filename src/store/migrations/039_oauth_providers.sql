-- OAuth providers: a user's binding to an OpenID Connect identity, the (issuer, subject) of a
-- verified id token and the audience (the app's client id) it was issued to; oauth_login finds the
-- user by (issuer, subject) and checks a token's audience against the one bound. One (issuer,
-- subject) belongs to one user per organization. Users are never deleted (removed_at): a user's
-- providers are deleted when the user is removed, so the identity may be bound again.
CREATE TABLE oauth_providers (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  user_id          uuid NOT NULL REFERENCES users (id),
  activity_id      uuid NOT NULL REFERENCES activities (id),
  provider_name    text NOT NULL,
  issuer           text NOT NULL,
  subject          text NOT NULL,
  audience         text NOT NULL,
  created_at       timestamptz NOT NULL,
  CONSTRAINT oauth_providers_subject_key UNIQUE (organization_id, issuer, subject)
);
-- A user's providers, oldest first (get_user, list_users, delete_oauth_providers).
CREATE INDEX oauth_providers_user ON oauth_providers (user_id, created_at);
-- list_suborgs by an id token: the organizations where its (issuer, subject) is bound.
CREATE INDEX oauth_providers_subject ON oauth_providers (issuer, subject);
