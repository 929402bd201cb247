-- A vote stamped with a passkey keeps what the passkey signed besides its signature: the WebAuthn
-- authenticatorData and clientDataJSON of the assertion, base64url as the stamp carried them (the
-- stamp parser bounds them to 2048 and 4096 decoded bytes). With them anyone holding the vote can check
-- the signature: ECDSA over authenticatorData || SHA-256(clientDataJSON), whose challenge is the hex
-- SHA-256 of the vote's message. Votes stamped otherwise, and passkey votes written before, have none.
ALTER TABLE votes
  ADD COLUMN authenticator_data text,
  ADD COLUMN client_data_json text;
