-- User tags: named groups of an organization's users, which consensus rules name by id. A tag's name
-- is unique in its organization; deleting a tag removes it from its users (the members cascade).
CREATE TABLE user_tags (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  name             text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  UNIQUE (organization_id, name)
);
-- The list's order (newest first) and its cursors.
CREATE INDEX user_tags_page ON user_tags (organization_id, created_at, id);

CREATE TABLE user_tag_members (
  tag_id   uuid NOT NULL REFERENCES user_tags (id) ON DELETE CASCADE,
  user_id  uuid NOT NULL REFERENCES users (id),
  PRIMARY KEY (tag_id, user_id)
);
-- A user's tags, read with the user.
CREATE INDEX user_tag_members_user ON user_tag_members (user_id);
