package provider

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

var (
	//go:embed sql/insert_charge.sql
	sqlInsertCharge string
	//go:embed sql/insert_key.sql
	sqlInsertKey string
	//go:embed sql/find_key.sql
	sqlFindKey string
)

// HeaderReplayed marks an answer the provider replayed for a repeated
// Idempotency-Key: nothing was charged this time.
const HeaderReplayed = "Idempotent-Replayed"

// ChargeRequest is the body of POST /charges.
type ChargeRequest struct {
	PaymentID   uuid.UUID `json:"payment_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
}

// Charge is the provider's answer: the charge it made (or, replayed, made
// for the first request with the key).
type Charge struct {
	ChargeID    int64     `json:"charge_id"`
	PaymentID   uuid.UUID `json:"payment_id"`
	AmountCents int64     `json:"amount_cents"`
	Currency    string    `json:"currency"`
}

// maxBody is far more than a charge's body: a larger one is refused unread.
const maxBody = 4 << 10

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// errKeyReused is a key sent again with another body.
var errKeyReused = errors.New("this Idempotency-Key was used for another charge")

func (s *Server) charge(w http.ResponseWriter, r *http.Request) {
	var req ChargeRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeProblem(w, http.StatusBadRequest, "the body is not a charge: "+err.Error())
		return
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		writeProblem(w, http.StatusBadRequest, "the body holds more than one JSON value")
		return
	}
	if msg := req.invalid(); msg != "" {
		writeProblem(w, http.StatusBadRequest, msg)
		return
	}
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	ch, replayed, err := s.store(r, req, key)
	switch {
	case errors.Is(err, errKeyReused):
		writeProblem(w, http.StatusUnprocessableEntity, err.Error()+": a retry repeats its body exactly, a new charge needs a new key")
		return
	case err != nil:
		writeProblem(w, http.StatusInternalServerError, err.Error())
		return
	}
	body, _ := json.Marshal(ch) // ints, a uuid and a string: cannot fail
	w.Header().Set("Content-Type", "application/json")
	if replayed {
		w.Header().Set(HeaderReplayed, "true")
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(append(body, '\n'))
}

func (req ChargeRequest) invalid() string {
	switch {
	case req.PaymentID == uuid.Nil:
		return "payment_id is required"
	case req.AmountCents <= 0:
		return "amount_cents must be a positive number of cents"
	case !currencyCode.MatchString(req.Currency):
		return "currency must be three capital letters (ISO 4217)"
	}
	return ""
}

// store charges, and keeps the answer under the key when there is one, in
// one transaction: a key already kept rolls the new charge back and answers
// the kept one.
func (s *Server) store(r *http.Request, req ChargeRequest, key string) (Charge, bool, error) {
	ctx := r.Context()
	ch := Charge{PaymentID: req.PaymentID, AmountCents: req.AmountCents, Currency: req.Currency}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return ch, false, fmt.Errorf("provider: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	now := s.clock.Now()
	var k *string
	if key != "" {
		k = &key
	}
	if err := tx.QueryRow(ctx, sqlInsertCharge, req.PaymentID, req.AmountCents, req.Currency, k, now).Scan(&ch.ChargeID); err != nil {
		return ch, false, fmt.Errorf("provider: insert charge: %w", err)
	}
	if key != "" {
		tag, err := tx.Exec(ctx, sqlInsertKey, key, req.PaymentID, req.AmountCents, req.Currency, ch.ChargeID, now)
		if err != nil {
			return ch, false, fmt.Errorf("provider: insert key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			_ = tx.Rollback(ctx)
			return s.replay(r, req, key)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return ch, false, fmt.Errorf("provider: commit: %w", err)
	}
	return ch, false, nil
}

// replay is the first answer to key, read after the charge that found it
// was rolled back.
func (s *Server) replay(r *http.Request, req ChargeRequest, key string) (Charge, bool, error) {
	var first Charge
	err := s.pool.QueryRow(r.Context(), sqlFindKey, key).Scan(&first.PaymentID, &first.AmountCents, &first.Currency, &first.ChargeID)
	if errors.Is(err, pgx.ErrNoRows) {
		return first, false, fmt.Errorf("provider: key %q vanished after it conflicted", key)
	}
	if err != nil {
		return first, false, fmt.Errorf("provider: find key: %w", err)
	}
	if first.PaymentID != req.PaymentID || first.AmountCents != req.AmountCents || first.Currency != req.Currency {
		return first, false, errKeyReused
	}
	return first, true, nil
}
