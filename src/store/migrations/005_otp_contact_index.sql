-- Per-contact OTP rate limits count recent codes by contact.
CREATE INDEX otps_contact ON otps (organization_id, contact, otp_type, created_at);
