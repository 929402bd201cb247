-- Private keys: an organization's single keys (no derivation), each sealed for the store as a wallet's
-- mnemonic is (AES-256-GCM under a data key wrapped by the deployment's key-encryption key, bound to
-- the organization, the key's id and the kind 'private_key'), with its public key and its addresses,
-- one per address format asked for. Names are unique per organization; how many an organization may
-- have is counted by the statements that create them, under the organization's lock.
CREATE TABLE private_keys (
  id                  uuid PRIMARY KEY,
  organization_id     uuid NOT NULL REFERENCES organizations (id),
  activity_id         uuid NOT NULL REFERENCES activities (id),
  name                text NOT NULL,
  curve               text NOT NULL,
  public_key          text NOT NULL,
  sealed_private_key  text NOT NULL,
  exported            boolean NOT NULL DEFAULT false,
  imported            boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  CONSTRAINT private_keys_name_key UNIQUE (organization_id, name)
);
-- The organization's private keys, listed newest first.
CREATE INDEX private_keys_organization ON private_keys (organization_id, created_at);

-- A private key's addresses, in the order asked (position); deleted with their key.
CREATE TABLE private_key_addresses (
  private_key_id   uuid NOT NULL REFERENCES private_keys (id) ON DELETE CASCADE,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  position         integer NOT NULL,
  address_format   text NOT NULL,
  address          text NOT NULL,
  PRIMARY KEY (private_key_id, address_format)
);

-- A signature's key found by signWith in one indexed read: an address matched exactly, an Ethereum
-- address without case (EIP-55 only adds a checksum to it), for wallet accounts and private keys alike.
CREATE INDEX private_key_addresses_address ON private_key_addresses (organization_id, address);
CREATE INDEX private_key_addresses_ethereum ON private_key_addresses (organization_id, lower(address))
  WHERE address_format = 'ADDRESS_FORMAT_ETHEREUM';
CREATE INDEX wallet_accounts_address ON wallet_accounts (organization_id, address);
CREATE INDEX wallet_accounts_ethereum ON wallet_accounts (organization_id, lower(address))
  WHERE address_format = 'ADDRESS_FORMAT_ETHEREUM';
