-- The wrong relay's mark: what it published is marked (no lease to check),
-- and its cursor moves to the highest seq it read, in the same implicit
-- transaction. Every seq at or below the cursor is taken as done, including
-- one whose transaction had not committed when the poll ran.
WITH marked AS (
    UPDATE outbox_messages
    SET published_at = $3
    WHERE id = ANY($1)
    RETURNING id
), moved AS (
    INSERT INTO relay_offsets (relay_name, last_seq)
    VALUES ($2, $4)
    ON CONFLICT (relay_name) DO UPDATE SET last_seq = GREATEST(relay_offsets.last_seq, EXCLUDED.last_seq)
)
SELECT id FROM marked
