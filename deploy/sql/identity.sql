-- identity: the deployment's identity, made now ($1, $2, $3) unless its
-- database has one already; the last column says it was made now.
WITH made AS (
    INSERT INTO deployment_identity (id, pipeline, created_at) VALUES ($1, $2, $3)
    ON CONFLICT (one) DO NOTHING
    RETURNING id, pipeline
)
SELECT id, pipeline, true FROM made
UNION ALL
SELECT id, pipeline, false FROM deployment_identity WHERE NOT EXISTS (SELECT 1 FROM made)
