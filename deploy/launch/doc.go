// Package launch starts the deployment (package deploy: the outbox
// pipeline for real on JetStream, on the system clock) on a PostgreSQL server
// as `outboxlab serve --broker` and `outboxlab live` run it: in a database and
// a stream of fixed names, kept across restarts so that a deployment started
// again carries on, unless --fresh empties both. It sits beside deploy, which
// knows no server (pg), so that deploy stays the pipeline alone.
package launch
