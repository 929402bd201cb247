-- Pending imports: the target key init_import_wallet (and init_import_private_key) hands a user in a
-- signed import bundle, kept until the import that uses it. The key's private half is sealed for the
-- store as wallet key material is (AES-256-GCM under a data key the key-encryption key wraps, bound to
-- the organization, this row's id and the kind 'import_target_key'). A row is used once (the import's
-- statement deletes it), refused past expires_at, and replaced by the user's next init of that kind.
CREATE TABLE pending_imports (
  id                 uuid PRIMARY KEY,
  organization_id    uuid NOT NULL REFERENCES organizations (id),
  user_id            uuid NOT NULL REFERENCES users (id),
  activity_id        uuid NOT NULL REFERENCES activities (id),
  kind               text NOT NULL CHECK (kind IN ('wallet', 'private_key')),
  target_public_key  text NOT NULL,
  sealed_target_key  text NOT NULL,
  created_at         timestamptz NOT NULL,
  expires_at         timestamptz NOT NULL
);
-- A user's pending imports of a kind, newest first: what an import reads and an init replaces.
CREATE INDEX pending_imports_user ON pending_imports (organization_id, user_id, kind, created_at);
