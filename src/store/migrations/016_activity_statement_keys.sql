-- The rows an activity's one statement writes are tied together by that statement, not by foreign
-- keys: it writes the activity, then its vote, domain rows, OTP and outbox row each from the
-- activity row it has just written (new_activity), and runs only when the stamping credential's row
-- (of this organization and user) is usable, read in the same snapshot. Organizations and users are
-- never deleted (a user is marked removed). The checks these keys made were each a lookup and a
-- FOR KEY SHARE lock on the referenced row at every activity: with every activity of an organization
-- locking that organization's row, concurrent submissions shared one row lock (a MultiXact each).
ALTER TABLE activities DROP CONSTRAINT activities_organization_id_fkey;
ALTER TABLE votes DROP CONSTRAINT votes_activity_id_fkey, DROP CONSTRAINT votes_user_id_fkey;
ALTER TABLE smart_contract_interfaces DROP CONSTRAINT smart_contract_interfaces_organization_id_fkey,
                                      DROP CONSTRAINT smart_contract_interfaces_activity_id_fkey;
ALTER TABLE otps DROP CONSTRAINT otps_organization_id_fkey, DROP CONSTRAINT otps_activity_id_fkey;
ALTER TABLE outbox DROP CONSTRAINT outbox_organization_id_fkey, DROP CONSTRAINT outbox_otp_id_fkey;
ALTER TABLE verification_token_uses DROP CONSTRAINT verification_token_uses_organization_id_fkey;
