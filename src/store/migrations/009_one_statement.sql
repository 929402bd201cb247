-- An activity is written by one statement, and large values are kept once.
-- The submitting vote's message is the activity's raw body: stored once, in activities.raw_body
-- (a NULL message means exactly that).
ALTER TABLE votes ALTER COLUMN message DROP NOT NULL;
UPDATE votes v SET message = NULL FROM activities a WHERE a.id = v.activity_id AND v.message = a.raw_body;

-- The intent as the JSON text the answer carries, serialised once at submission and never again.
ALTER TABLE activities ALTER COLUMN intent TYPE text USING intent::text;

-- OTP rate limits: for each scope (an organization's user identifier or contact, per channel) the
-- send times within its window, taken and checked atomically by the activity's own statement.
CREATE TABLE otp_rate_windows (
  scope    text PRIMARY KEY,
  sent_at  timestamptz[] NOT NULL
);
