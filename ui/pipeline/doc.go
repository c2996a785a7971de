// Package pipeline is the pipeline pane: each pipeline of the scene drawn
// as a chain, API → PostgreSQL → relays → broker → consumers, every actor
// with its state, the checkpoint it is parked at and the faults armed on
// it, and what waits between them. The root feeds it the actors after each
// action (ActorsMsg) and what it read of the simulation (OraclesMsg,
// EdgesMsg); the pages lay it out (Height, OneLineHeight) and compare view
// draws one pipeline at a time (ViewPipeline).
package pipeline
