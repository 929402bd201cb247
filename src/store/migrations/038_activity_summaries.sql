-- A signing activity's summary in words (what it signs, decoded with the organization's smart
-- contract interfaces: chain, recipient and its label, function and arguments, value), as its
-- decision read it: written by the activity's own statement, and again by each vote's, so the
-- console, get_activity and the webhook events show what the approval emails showed. At most 16 KiB
-- of JSON (the engine cuts it before it is written). A column rather than a table of its own: it is
-- one value per activity, read with the activity by the statements that read it and written by the
-- INSERT or UPDATE that writes the activity, with no join and no further part in the statement; a
-- nullable column without a default is added without rewriting the table, and costs the activities
-- without one (most) a bit of their null bitmap.
ALTER TABLE activities ADD COLUMN summary jsonb;
