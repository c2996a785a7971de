-- Rows in relay_offsets (the seq-cursor relay's cursors), for the Tables
-- pane's header.
SELECT count(*) FROM relay_offsets
