-- Approval emails: when an activity starts waiting for approvals, each user who may vote on it (and
-- has an email address, and did not submit it) is sent one email through the outbox. A row here says
-- it was queued for that user, written by the statement that queues it; the primary key makes it at
-- most once per activity and user, whichever process writes and however often the activity is
-- decided again. The outbox row goes after its retention; this one stays, as the activity does.
CREATE TABLE approval_requests (
  activity_id  uuid NOT NULL REFERENCES activities (id),
  user_id      uuid NOT NULL REFERENCES users (id),
  outbox_id    uuid NOT NULL,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (activity_id, user_id)
);
