-- App Proofs of an activity submitted with generateAppProofs: true (signed by the service's
-- 'app-proof' key in signing_keys).
ALTER TABLE activities ADD COLUMN app_proofs jsonb;
