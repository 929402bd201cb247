-- One public key names one principal wherever it reaches. A key of an organization reaches the
-- organization, its sub-organizations (the parent's reach) and, for whoami and stamp_login, its
-- parent: all within one tree, a top-level organization with its sub-organizations (one level deep).
-- So a public key is registered once per tree (api_keys.tree_id: the key's organization's parent,
-- or the organization itself when it has none), revoked keys and those of deleted sub-organizations
-- included, whatever the kind (API key, session key, otp_auth key); the unique index below makes
-- concurrent registrations of one key in one tree refuse all but one.
ALTER TABLE api_keys ADD COLUMN tree_id uuid REFERENCES organizations (id);

UPDATE api_keys k SET tree_id = coalesce(o.parent_id, o.id) FROM organizations o WHERE o.id = k.organization_id;

-- Registrations made before this rule that repeat an older one (created_at, then id) of the same
-- tree: an end user who copied its app's key. They are revoked and leave the tree (tree_id NULL),
-- so a lookup by public key finds only the oldest, the same in every process.
UPDATE api_keys k SET tree_id = NULL, revoked_at = coalesce(k.revoked_at, now())
  FROM (SELECT id, row_number() OVER (PARTITION BY tree_id, public_key ORDER BY created_at, id) AS n FROM api_keys) r
 WHERE r.id = k.id AND r.n > 1;

CREATE UNIQUE INDEX api_keys_tree_public_key ON api_keys (tree_id, public_key);

-- Every new key gets its tree from its organization, unless the statement gives it (a
-- sub-organization created in the same statement as its root users' keys is not visible to it yet).
CREATE FUNCTION api_keys_tree() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  NEW.tree_id := (SELECT coalesce(o.parent_id, o.id) FROM organizations o WHERE o.id = NEW.organization_id);
  IF NEW.tree_id IS NULL THEN
    RAISE EXCEPTION 'api_keys: no organization % to take the key''s tree from', NEW.organization_id;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER api_keys_tree BEFORE INSERT ON api_keys FOR EACH ROW WHEN (NEW.tree_id IS NULL) EXECUTE FUNCTION api_keys_tree();
