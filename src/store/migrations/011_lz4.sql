-- The large values (a body, its intent, a stored interface: up to 400 KiB each) are compressed with
-- lz4 where the server has it: pglz cost a PostgreSQL server some 7 ms per 400 KiB interface, lz4
-- well under one. PGlite has only pglz, and keeps it.
DO $$
BEGIN
  IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
    ALTER TABLE activities ALTER COLUMN raw_body SET COMPRESSION lz4, ALTER COLUMN intent SET COMPRESSION lz4;
    ALTER TABLE smart_contract_interfaces ALTER COLUMN smart_contract_interface SET COMPRESSION lz4;
  END IF;
END
$$;
