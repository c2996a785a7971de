package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// ErrProvider means the external provider refused or failed a call: the
// effect did not happen (or its outcome is unknown, for a lost answer).
var ErrProvider = errors.New("provider call failed")

// ChargeRequest is a card charge a consumer asks an external provider for
// (S19). IdempotencyKey "" sends no key: every such call charges.
type ChargeRequest struct {
	PaymentID      uuid.UUID
	AmountCents    int64
	Currency       string
	IdempotencyKey string
}

// Charge is the provider's answer. Replayed says the provider had answered
// this key before and charged nothing this time.
type Charge struct {
	ID       int64
	Replayed bool
}

// Provider is the third party an external effect goes to. Its real
// implementation is HTTPProvider; the simulator runs package provider's
// server on loopback behind it.
type Provider interface {
	Charge(ctx context.Context, req ChargeRequest) (Charge, error)
}

// HTTPProvider calls a provider's POST /charges over HTTP.
type HTTPProvider struct {
	URL    string       // http://127.0.0.1:PORT
	Client *http.Client // nil: http.DefaultClient
}

// Charge sends one charge; a key goes in the Idempotency-Key header.
func (p HTTPProvider) Charge(ctx context.Context, req ChargeRequest) (Charge, error) {
	body, err := json.Marshal(struct {
		PaymentID   uuid.UUID `json:"payment_id"`
		AmountCents int64     `json:"amount_cents"`
		Currency    string    `json:"currency"`
	}{req.PaymentID, req.AmountCents, req.Currency})
	if err != nil {
		return Charge{}, fmt.Errorf("charge: encode: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(p.URL, "/")+"/charges", bytes.NewReader(body))
	if err != nil {
		return Charge{}, fmt.Errorf("charge: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if req.IdempotencyKey != "" {
		hr.Header.Set("Idempotency-Key", req.IdempotencyKey)
	}
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(hr)
	if err != nil {
		return Charge{}, fmt.Errorf("charge: %w: %w", ErrProvider, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return Charge{}, fmt.Errorf("charge: read answer: %w: %w", ErrProvider, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return Charge{}, fmt.Errorf("charge: %w: %s: %s", ErrProvider, resp.Status, bytes.TrimSpace(raw))
	}
	var out struct {
		ChargeID int64 `json:"charge_id"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return Charge{}, fmt.Errorf("charge: decode answer: %w: %w", ErrProvider, err)
	}
	return Charge{ID: out.ChargeID, Replayed: resp.Header.Get("Idempotent-Replayed") == "true"}, nil
}
