-- Policies: an organization's rules for the activities its root quorum does not approve on its own.
-- A policy ALLOWs or DENYs (effect) the activities its condition holds for, when its consensus holds
-- for their approvers; both are expressions of the policy language, kept as written ('' when absent:
-- a policy about every activity, or one any approvers satisfy) and checked before they are stored.
-- A name is unique in its organization. How many an organization may have (a hundred) is counted by
-- the statements that create them, which lock the organization's row first so that concurrent ones
-- count one after the other.
CREATE TABLE policies (
  policy_id        uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  name             text NOT NULL,
  effect           text NOT NULL CHECK (effect IN ('EFFECT_ALLOW', 'EFFECT_DENY')),
  condition        text NOT NULL DEFAULT '',
  consensus        text NOT NULL DEFAULT '',
  notes            text NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  -- Also the index an organization's policies are read by (there are few, so sorting them is cheap).
  UNIQUE (organization_id, name)
);
