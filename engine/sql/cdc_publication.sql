-- Is the outbox published for the CDC relay's slot (pg/schema/006)?
SELECT count(*)
FROM pg_publication_tables
WHERE pubname = $1 AND schemaname = current_schema() AND tablename = 'outbox_messages'
