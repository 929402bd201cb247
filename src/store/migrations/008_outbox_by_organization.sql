-- Operators list an organization's deliveries, newest first, or those of one OTP.
CREATE INDEX outbox_organization ON outbox (organization_id, created_at DESC);
CREATE INDEX outbox_otp ON outbox (otp_id);
