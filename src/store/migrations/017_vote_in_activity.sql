-- An activity's vote is kept in the activity's own row. Signet records one vote per activity, the
-- submitter's, written by the activity's one statement; as a row of its own it cost every activity
-- a second heap row and two index entries (votes_pkey, votes_activity), and every read a join.
-- The columns are nullable for activities stored without a vote; vote_message NULL is the
-- activity's raw body (as votes.message NULL was since migration 009).
ALTER TABLE activities
  ADD COLUMN vote_id         uuid,
  ADD COLUMN vote_user_id    uuid,
  ADD COLUMN vote_selection  text,
  ADD COLUMN vote_message    text,
  ADD COLUMN vote_public_key text,
  ADD COLUMN vote_signature  text,
  ADD COLUMN vote_scheme     text,
  ADD COLUMN vote_created_at timestamptz;

-- No vote is dropped silently: a store holding two votes of one activity (which no version of
-- Signet writes) stops the migration instead.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM votes GROUP BY activity_id HAVING count(*) > 1) THEN
    RAISE EXCEPTION 'an activity has more than one vote; this version of Signet keeps one vote per activity';
  END IF;
END
$$;

UPDATE activities a
   SET vote_id = v.id, vote_user_id = v.user_id, vote_selection = v.selection, vote_message = v.message,
       vote_public_key = v.public_key, vote_signature = v.signature, vote_scheme = v.scheme, vote_created_at = v.created_at
  FROM votes v
 WHERE v.activity_id = a.id;

DROP TABLE votes;
