-- Wallets: an organization's HD wallets, each a BIP-39 mnemonic sealed for the store (AES-256-GCM
-- under a data key wrapped by the deployment's key-encryption key, bound to the organization, the
-- wallet's id and the kind 'wallet_mnemonic'), and the accounts derived from it. An account keeps
-- what answers show (its path, address and public key), never a private key: one is derived again
-- from the sealed mnemonic when needed. Names are unique per organization, an account's path and
-- address format per wallet. How many an organization may have is counted by the statements that
-- create them, which lock the organization's row first so that concurrent ones count one after the other.
CREATE TABLE wallets (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  activity_id      uuid NOT NULL REFERENCES activities (id),
  name             text NOT NULL,
  sealed_mnemonic  text NOT NULL,
  exported         boolean NOT NULL DEFAULT false,
  imported         boolean NOT NULL DEFAULT false,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT wallets_name_key UNIQUE (organization_id, name)
);
-- The organization's wallets, listed newest first (the unique key above serves the name's check).
CREATE INDEX wallets_organization ON wallets (organization_id, created_at);

CREATE TABLE wallet_accounts (
  id               uuid PRIMARY KEY,
  wallet_id        uuid NOT NULL REFERENCES wallets (id),
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  curve            text NOT NULL,
  path_format      text NOT NULL,
  path             text NOT NULL,
  address_format   text NOT NULL,
  address          text NOT NULL,
  public_key       text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  CONSTRAINT wallet_accounts_path_key UNIQUE (wallet_id, path, address_format)
);
-- The organization's accounts, listed across its wallets.
CREATE INDEX wallet_accounts_organization ON wallet_accounts (organization_id, created_at);
