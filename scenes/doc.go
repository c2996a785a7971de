// Package scenes holds scripted scenarios, one per failure case: the format,
// its parser and the built-in scenes (embedded). A scene is plain text an
// instructor can read and write; sim runs it.
//
// The format, line by line ('#' starts a comment; blank lines are ignored):
//
//	title: The dual write loses an event          header: key: value
//	teaches: S1. commit; publish ...               (title and teaches are required)
//	title.es: La escritura doble pierde un evento  optional: title and teaches.LANG: in a language by its two-letter code
//	mode: compare                                  naive | outbox | compare (default outbox)
//	naive: commit-then-publish                     or publish-then-commit
//	consumer: inbox                                or select-then-insert (the wrong way, S18), or trace-id (the inbox keyed on the trace id, S22)
//	relays: 2                                      1 or 2
//	ordering: partition                            none | partition | one-in-flight (how relays keep an aggregate in order, S20)
//	versions: park                                 check | ignore | park (what a consumer does with a version gap)
//	effect: provider-key                           accounting also charges a card (S19): marker-before | marker-after | provider-key | second-outbox | none
//	lease: 30s  ack-timeout: 30s  max-attempts: 12  batch: 10   (one per line)
//	variant: select-then-insert consumer: select-then-insert     a named variant overriding settings
//	seed: 7
//
//	request amount=1250 client=acme key=k-1        a payment request (key optional)
//	crash relay-1 at relay.published               arm a fault for when the actor reaches the checkpoint
//	...
//	expect outbox duplicate_effects == 0           the expected outcome, checked by the oracle
//
// Commands are documented in Commands; a malformed line is an error naming
// file:line and the reason.
package scenes
