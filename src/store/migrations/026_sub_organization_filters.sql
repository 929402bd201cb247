-- list_suborgs' filters that the indexes of 025 do not serve: a parent's sub-organization by its
-- exact name, and users across organizations by their name (a parent's sub-organizations by a user's name).
CREATE INDEX organizations_parent_name ON organizations (parent_id, name) WHERE parent_id IS NOT NULL;
CREATE INDEX users_user_name ON users (user_name) WHERE removed_at IS NULL;
