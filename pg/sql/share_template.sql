-- Run in the template as the superuser: a clone's non-superuser owner must
-- be able to do there what the simulator does, TRUNCATE ... RESTART
-- IDENTITY and triggers included, which need ownership, not a grant. A
-- clone copies ownership, so the template's tables, their sequences and
-- functions, and the provider schema are given to outboxlab_template_users,
-- whose members own them through it; the public schema is the clone
-- owner's already (pg_database_owner). Run again on every call: a
-- migration since may have added objects, which the superuser owns.
DO $$
DECLARE
    o record;
BEGIN
    FOR o IN SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname IN ('public', 'provider') AND c.relkind IN ('r', 'p', 'v', 'm')
    LOOP
        -- A table's owner is its indexes' and its columns' sequences' too.
        EXECUTE format('ALTER TABLE %s OWNER TO outboxlab_template_users', o.name);
    END LOOP;
    FOR o IN SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname IN ('public', 'provider') AND c.relkind = 'S'
               AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
    LOOP
        EXECUTE format('ALTER SEQUENCE %s OWNER TO outboxlab_template_users', o.name);
    END LOOP;
    FOR o IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname IN ('public', 'provider')
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO outboxlab_template_users', o.name);
    END LOOP;
END
$$;
ALTER SCHEMA provider OWNER TO outboxlab_template_users;
