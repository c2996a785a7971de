-- Slot names are cluster-wide and a slot belongs to one database: the
-- database's oid keeps relay-1 of two databases (parallel tests, two
-- simulators) apart. $1 is the relay's name, already [a-z0-9_]; $2 is
-- slotname.Prefix, which tells outboxlab's slots from a server owner's.
SELECT $2::text || d.oid || '_' || $1::text
FROM pg_database AS d
WHERE d.datname = current_database()
