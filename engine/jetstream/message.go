package jetstream

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/outboxlab/outboxlab/engine"
)

// Headers the broker writes beside Nats-Msg-Id. Message.Metadata travels as
// headers of its own names ("traceparent", "published_by").
const (
	headerKey         = "Outboxlab-Key"
	headerPublishedAt = "Outboxlab-Published-At"
)

// encode turns msg into a NATS message on subject: the envelope as JSON in
// the body, the event id as Nats-Msg-Id (JetStream's dedup key), the
// metadata as headers. publishedAt is the publisher's clock, as the
// in-process broker stamps it on its own.
func encode(subject string, msg engine.Message, publishedAt time.Time) (*nats.Msg, error) {
	body, err := json.Marshal(msg.Envelope)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", msg.ID, err)
	}
	m := nats.NewMsg(subject)
	m.Data = body
	m.Header.Set(jetstream.MsgIDHeader, msg.ID.String())
	for k, v := range msg.Metadata {
		m.Header.Set(k, v)
	}
	if msg.Key != "" {
		m.Header.Set(headerKey, msg.Key)
	}
	m.Header.Set(headerPublishedAt, publishedAt.Format(time.RFC3339Nano))
	return m, nil
}

// decode is encode's inverse for a delivered message.
func decode(topic string, m jetstream.Msg) (engine.Message, error) {
	var msg engine.Message
	if err := json.Unmarshal(m.Data(), &msg.Envelope); err != nil {
		return msg, fmt.Errorf("decode %s: %w", m.Subject(), err)
	}
	if msg.ID == uuid.Nil {
		id, err := uuid.Parse(m.Headers().Get(jetstream.MsgIDHeader))
		if err != nil {
			return msg, fmt.Errorf("decode %s: no event id", m.Subject())
		}
		msg.ID = id
	}
	msg.Topic = topic
	h := m.Headers()
	msg.Key = h.Get(headerKey)
	if at, err := time.Parse(time.RFC3339Nano, h.Get(headerPublishedAt)); err == nil {
		msg.PublishedAt = at
	}
	for k, vs := range h {
		switch k {
		case jetstream.MsgIDHeader, headerKey, headerPublishedAt:
			continue
		}
		if len(vs) > 0 {
			if msg.Metadata == nil {
				msg.Metadata = map[string]string{}
			}
			msg.Metadata[k] = vs[0]
		}
	}
	return msg, nil
}
