-- claim_holder: who holds the deployment's lock ($1, the key) on this
-- database: the application_name its session gave, its pid and address.
SELECT coalesce(a.application_name, ''), a.pid, coalesce(host(a.client_addr), 'local')
  FROM pg_locks l
  JOIN pg_stat_activity a ON a.pid = l.pid
 WHERE l.locktype = 'advisory'
   AND l.granted
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
 LIMIT 1
