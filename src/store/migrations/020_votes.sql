-- Votes have their own table again: an activity may wait for other users' approval, each user with a
-- vote of its own, and one activity row holds one vote at most. The submitter's vote is still written
-- by the activity's one statement, from the activity row it has just written.
-- message NULL is the activity's raw body, kept once in activities.raw_body (as since migration 009).
-- The unique (activity_id, user_id) is both the rule (one vote per user and activity) and the index
-- by which an activity's votes are read. No foreign keys, for the reason of migration 016: a vote is
-- written by the statement that writes or reads its activity and checks the stamping user's
-- credential, activities and users are never deleted, and a key to users would take a FOR KEY SHARE
-- lock on the voter's row at every activity (one MultiXact for concurrent submissions of one user).
CREATE TABLE votes (
  id               uuid PRIMARY KEY,
  activity_id      uuid NOT NULL,
  organization_id  uuid NOT NULL,
  user_id          uuid NOT NULL,
  selection        text NOT NULL CHECK (selection IN ('VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED')),
  message          text,
  public_key       text NOT NULL,
  signature        text NOT NULL,
  scheme           text NOT NULL,
  created_at       timestamptz NOT NULL,
  UNIQUE (activity_id, user_id)
);

INSERT INTO votes (id, activity_id, organization_id, user_id, selection, message, public_key, signature, scheme, created_at)
SELECT vote_id, id, organization_id, vote_user_id, vote_selection, vote_message, vote_public_key, vote_signature, vote_scheme, vote_created_at
  FROM activities
 WHERE vote_id IS NOT NULL;

ALTER TABLE activities
  DROP COLUMN vote_id,
  DROP COLUMN vote_user_id,
  DROP COLUMN vote_selection,
  DROP COLUMN vote_message,
  DROP COLUMN vote_public_key,
  DROP COLUMN vote_signature,
  DROP COLUMN vote_scheme,
  DROP COLUMN vote_created_at;
