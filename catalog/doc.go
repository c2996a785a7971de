// Package catalog is the message catalog of what outboxlab's screen says
// itself (status line, keys, dialogs, pane titles, figures), in English and
// Spanish, with plural rules: golang.org/x/text/message, the Go project's own
// printer, because it formats and pluralises through the same Sprintf a
// pane already calls. A message's key is its English text.
package catalog
