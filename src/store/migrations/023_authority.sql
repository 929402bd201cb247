-- What decides an organization's activities (its root quorum, its policies, its users' tags) has a
-- version, raised by every statement that changes any of it. Processes keep what they decided with in
-- memory; an activity's statement checks that the version it was decided under is still the current
-- one, and a process that finds it changed reads the organization's authority again and decides anew.
ALTER TABLE organizations ADD COLUMN authority_version bigint NOT NULL DEFAULT 0;

-- A vote records the credential it was stamped with as policies see it (its type, the id of the API
-- key or passkey, and a passkey's WebAuthn credential id), and what the organization's policies said
-- of the activity with that vote counted (get_policy_evaluations: [{policyId, outcome}], [] when the
-- root quorum decided). Votes written before have none: their credential is read from the scheme,
-- their evaluations as [].
ALTER TABLE votes
  ADD COLUMN credential_type text,
  ADD COLUMN credential_id uuid,
  ADD COLUMN webauthn_credential_id text,
  ADD COLUMN policy_evaluations jsonb;

-- An activity allowed only later, at the approval that completes its consensus, may be refused then
-- (an expired code, a name taken meanwhile): it is ACTIVITY_STATUS_FAILED with the refusal here,
-- {code, message}.
ALTER TABLE activities ADD COLUMN failure jsonb;

-- A user votes once on an activity, except its submitter, who may reject (withdraw) the activity it
-- approved by submitting it: at most one approval and one rejection per user and activity. The
-- engine, holding the activity's row, refuses any other second vote.
ALTER TABLE votes DROP CONSTRAINT votes_activity_id_user_id_key;
ALTER TABLE votes ADD CONSTRAINT votes_activity_id_user_id_selection_key UNIQUE (activity_id, user_id, selection);
