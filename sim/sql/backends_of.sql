-- How many of these backends ($1, pids) are still there: a connection its
-- client closed is gone once its backend has ended its transaction.
SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[])
