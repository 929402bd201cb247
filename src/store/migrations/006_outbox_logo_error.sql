-- Why an OTP email went out without the logo it asked for (fetch refused, not a PNG, too large…).
ALTER TABLE outbox ADD COLUMN logo_error text;
