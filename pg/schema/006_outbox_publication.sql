-- The CDC relay (engine/relay_cdc.go) reads the outbox's INSERTs from the
-- WAL through logical replication instead of polling the table: this
-- publication is what its pgoutput slot streams. Inserts only: the polling
-- relay's UPDATEs (leases, marks) and TRUNCATE are not events. Creating it
-- needs no wal_level = logical; streaming from it does (the CDC relay checks).
-- Dropped first: a database migrated by a build that numbered this file
-- otherwise has it already.
DROP PUBLICATION IF EXISTS outboxlab_outbox;
CREATE PUBLICATION outboxlab_outbox FOR TABLE outbox_messages WITH (publish = 'insert');
