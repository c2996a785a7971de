// Package story tells one message's life from a simulator timeline: every
// statement, publish, delivery, crash and redelivery that concerned it, in
// order, as an arrow from one participant to another. Render draws it as a
// sequence diagram in the terminal; Mermaid writes it for slides. Its words
// come from the message catalog: RenderIn and MermaidIn say them in the
// reader's language.
package story
