-- Every organization has a root quorum: a threshold and the users who are its members. The members
-- are a table of their own (one row per user), and a member must be a user of the same organization:
-- the foreign key on (organization_id, user_id) says so, hence the unique (organization_id, id) of users.
-- A CHECK cannot count rows of another table, so "threshold <= number of members" is kept by the one
-- statement that writes a quorum (store/rootQuorums.ts), which writes nothing when it does not hold.
ALTER TABLE users ADD CONSTRAINT users_organization_id_key UNIQUE (organization_id, id);

CREATE TABLE root_quorums (
  organization_id  uuid PRIMARY KEY REFERENCES organizations (id),
  threshold        int NOT NULL CHECK (threshold >= 1),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE root_quorum_members (
  organization_id  uuid NOT NULL REFERENCES root_quorums (organization_id),
  user_id          uuid NOT NULL,
  PRIMARY KEY (organization_id, user_id),
  FOREIGN KEY (organization_id, user_id) REFERENCES users (organization_id, id)
);

-- Organizations made before: their first user (the oldest, then by id; a removed one only when all
-- are removed) alone, threshold 1. One without any user gets threshold 1 and no member: no one can
-- approve for it until a quorum is set.
INSERT INTO root_quorums (organization_id, threshold) SELECT id, 1 FROM organizations;
INSERT INTO root_quorum_members (organization_id, user_id)
SELECT DISTINCT ON (organization_id) organization_id, id
  FROM users
 ORDER BY organization_id, removed_at IS NOT NULL, created_at, id;
