// Package telemetrytest holds tests' scrapes of a /metrics page (the
// simulator's and the deployment's): one scrape timed, a wait for lines to
// show, and a run of scrapes each held to a budget.
package telemetrytest
