-- Each wallet account's private key, sealed as the wallet's mnemonic is (AES-256-GCM under a data key
-- the key-encryption key wraps, bound to the organization, the account's id and the kind
-- 'wallet_account_key'), so that a signature opens one small value rather than deriving the key
-- from the mnemonic again (PBKDF2's 2048 rounds and the BIP-32 steps, several milliseconds). Empty
-- for an account made before this migration: its key is still derived from the mnemonic.
ALTER TABLE wallet_accounts ADD COLUMN sealed_private_key text;
