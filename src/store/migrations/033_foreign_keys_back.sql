-- Foreign keys again on the rows an activity's statement writes: those migration 016 dropped, and
-- those the votes table of 020 was made without (votes → activities, users, organizations). That one
-- statement writes them consistently does not stop a hand edit, a partial restore or a future
-- statement from leaving a vote of no user or an interface of no activity; the database now refuses
-- such a row. Measured on the benchmark's hot rows, their checks cost nothing above the noise
-- (docs/benchmarks.md, "Foreign keys"): the group commit writes up to 32 activities in one
-- statement, one statement at a time per process, so the FOR KEY SHARE lock on an organization's
-- (or user's) row is taken once per statement, not by each of many concurrent ones (016's MultiXact).
--
-- A key is checked when its statement ends, after every part of it: the rows a statement writes
-- before the row they name are checked against that row. So verification_token_uses.activity_id,
-- left without a key by 014 because a gate takes the use before the activity row is written, has one.
--
-- Plain references, no ON DELETE: organizations, users, activities and OTPs are never deleted (a
-- user is marked removed, a sub-organization deleted), nor their ids changed. So the referencing
-- columns get no index of their own (it would cost every activity an index entry): only a DELETE
-- of a referenced row would read them, and none is made.
--
-- Not keys: approval_requests.outbox_id (the outbox row is pruned after its retention, the request
-- stays; NULL there means no message was queued), and votes.credential_id, which names an API key, a
-- passkey or a verification token (no row) by credential_type.
ALTER TABLE activities ADD CONSTRAINT activities_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID;
ALTER TABLE votes
  ADD CONSTRAINT votes_activity_id_fkey FOREIGN KEY (activity_id) REFERENCES activities (id) NOT VALID,
  ADD CONSTRAINT votes_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID,
  ADD CONSTRAINT votes_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) NOT VALID;
ALTER TABLE smart_contract_interfaces
  ADD CONSTRAINT smart_contract_interfaces_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID,
  ADD CONSTRAINT smart_contract_interfaces_activity_id_fkey FOREIGN KEY (activity_id) REFERENCES activities (id) NOT VALID;
ALTER TABLE otps
  ADD CONSTRAINT otps_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID,
  ADD CONSTRAINT otps_activity_id_fkey FOREIGN KEY (activity_id) REFERENCES activities (id) NOT VALID;
ALTER TABLE outbox
  ADD CONSTRAINT outbox_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID,
  ADD CONSTRAINT outbox_otp_id_fkey FOREIGN KEY (otp_id) REFERENCES otps (id) NOT VALID;
ALTER TABLE verification_token_uses
  ADD CONSTRAINT verification_token_uses_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organizations (id) NOT VALID,
  ADD CONSTRAINT verification_token_uses_activity_id_fkey FOREIGN KEY (activity_id) REFERENCES activities (id) NOT VALID;

-- Each key above is then checked against the rows stored before (VALIDATE: one anti-join per key).
-- Added NOT VALID first so that a store holding rows that name nothing is refused with all of them
-- counted and one of each named, rather than with the first key's bare violation. No version of
-- Signet writes such a row (each is written by the statement that writes or holds what it names,
-- and nothing named is ever deleted): only a hand edit or a partial restore leaves one. The upgrade
-- then stops, the store as it was, until they are restored or deleted by hand; none is dropped
-- silently. (Validating in the same transaction holds the tables' locks as adding validated would:
-- every pending migration runs in one transaction.)
DO $$
DECLARE
  fk record;
  orphans bigint;
  example text;
  problems text[] := '{}';
BEGIN
  -- Every key of this schema not validated yet: the ones above (no earlier migration adds one NOT VALID).
  FOR fk IN
    SELECT c.conname, c.conrelid::regclass AS referencing, c.confrelid::regclass AS referenced,
           col.attname AS column_name, ref.attname AS referenced_column
      FROM pg_constraint c
      JOIN pg_attribute col ON col.attrelid = c.conrelid AND col.attnum = c.conkey[1]
      JOIN pg_attribute ref ON ref.attrelid = c.confrelid AND ref.attnum = c.confkey[1]
     WHERE c.contype = 'f' AND NOT c.convalidated AND c.connamespace = current_schema()::regnamespace
     ORDER BY c.conname
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s VALIDATE CONSTRAINT %I', fk.referencing, fk.conname);
    EXCEPTION WHEN foreign_key_violation THEN
      EXECUTE format('SELECT count(*), min(t.%1$I::text) FROM %2$s t WHERE t.%1$I IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %3$s r WHERE r.%4$I = t.%1$I)',
                     fk.column_name, fk.referencing, fk.referenced, fk.referenced_column)
        INTO orphans, example;
      problems := problems || format('%s: %s rows whose %s is in no row of %s (%s %s, for one)',
                                     fk.referencing, orphans, fk.column_name, fk.referenced, fk.column_name, example);
    END;
  END LOOP;
  IF cardinality(problems) > 0 THEN
    RAISE EXCEPTION 'rows that name what the store does not hold, which this version of Signet refuses: %; restore what they name or delete them, then upgrade',
      array_to_string(problems, '; ');
  END IF;
END
$$;
