-- identity_table: the table that holds a deployment's identity, one row,
-- made once on its database and kept by --fresh (which empties the
-- pipeline's tables, not this one): its stream is named after it.
CREATE TABLE IF NOT EXISTS deployment_identity (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    id         text NOT NULL,
    pipeline   text NOT NULL,
    created_at timestamptz NOT NULL
)
