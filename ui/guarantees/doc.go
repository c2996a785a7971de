// Package guarantees is the guarantees pane: the oracle of each pipeline,
// read from the database. The three violations come first (lost events,
// phantom effects, duplicate effects), red with an example id the moment
// one happens, then what the pipeline did. A narrow screen shows it as a
// summary strip (CompactView), compare view one pipeline at a time
// (ViewPipeline). The root feeds it each oracle it reads (OraclesMsg) and
// says when none can be read (StaleMsg): then it shows no figure nobody
// checked.
package guarantees
