-- snapshot_consumers: per consumer, the messages its inbox holds and the
-- effects it wrote (ledger entries, notifications), one row per consumer
-- that has any.
SELECT consumer_name,
       sum(inbox)::bigint   AS inbox_messages,
       sum(effects)::bigint AS effects
FROM (
    SELECT consumer_name, count(*) AS inbox, 0 AS effects FROM inbox_messages GROUP BY consumer_name
    UNION ALL
    SELECT consumer_name, 0, count(*) FROM ledger_entries GROUP BY consumer_name
    UNION ALL
    SELECT consumer_name, 0, count(*) FROM notifications GROUP BY consumer_name
) AS f
GROUP BY consumer_name
ORDER BY consumer_name
