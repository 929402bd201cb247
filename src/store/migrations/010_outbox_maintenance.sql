-- Claims stay cheap after millions of messages, without relying on autovacuum.
-- One partial index per way a message becomes due, each read by a plain ordered index scan (which
-- marks the entries of finished messages dead as it passes them, unlike the bitmap scans the one
-- combined index led to), and a periodic clean-up run by one worker at a time.
DROP INDEX outbox_due;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status IN ('queued', 'retrying');
CREATE INDEX outbox_leased ON outbox (lease_expires_at) WHERE status = 'sending';

-- When each periodic task last ran, so that of all the processes one runs it per period.
CREATE TABLE maintenance (
  task    text PRIMARY KEY,
  ran_at  timestamptz NOT NULL
);
