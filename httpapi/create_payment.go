package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/outboxlab/outboxlab/engine"
	"github.com/outboxlab/outboxlab/httpapi/deadline"
)

// createPayment is POST /payments. Everything the client got wrong is found
// before the backend runs, so a 400 never touches the database.
func (h *handler) createPayment(w http.ResponseWriter, r *http.Request) {
	if detail := jsonContentType(r.Header); detail != "" {
		// RFC 9110 (15.5.16): a 415 may say what the resource takes.
		w.Header().Set("Accept-Post", "application/json")
		writeProblem(w, http.StatusUnsupportedMediaType, detail)
		return
	}
	if r.ContentLength > MaxBodyBytes {
		// Refused before reading: the length says enough.
		writeProblem(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is %d bytes; at most %d are read", r.ContentLength, MaxBodyBytes))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeProblem(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", tooLarge.Limit))
			return
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The server's ReadTimeout: fewer bytes came than the
			// Content-Length promised. The connection is closed after this.
			came := fmt.Sprintf("%d bytes came", len(body))
			if r.ContentLength > 0 {
				came = fmt.Sprintf("%d of the %d bytes its Content-Length promised came", len(body), r.ContentLength)
			}
			// The limit said is the server's own (the Listener's Deadlines).
			within := deadline.ReadTimeout
			if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
				within = srv.ReadTimeout
			}
			writeProblem(w, http.StatusRequestTimeout, fmt.Sprintf("the body did not arrive within %s: %s", within, came))
			return
		}
		writeProblem(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	p, errs := decodePaymentBody(body)
	key, keyErr := idempotencyKey(r.Header)
	if keyErr != nil {
		errs = append(errs, *keyErr)
	}
	if len(errs) > 0 {
		writeProblem(w, http.StatusBadRequest, "the request is not a valid payment: see errors", errs...)
		return
	}
	resp, err := h.backend.CreatePayment(r.Context(), engine.PaymentRequest{
		ClientID: p.ClientID, IdempotencyKey: key, AmountCents: p.AmountCents, Currency: p.Currency,
		TraceParent: traceParent(r.Header),
	})
	if err != nil {
		writeBackendError(w, err)
		return
	}
	writeCreated(w, resp)
}

// writeCreated answers a created or replayed payment. A replay is encoded
// from the stored response exactly as the original was, so the two bodies
// are the same bytes; only Idempotent-Replayed tells them apart.
func writeCreated(w http.ResponseWriter, resp engine.PaymentResponse) {
	body, err := json.Marshal(resp)
	if err != nil {
		writeBackendError(w, fmt.Errorf("encode payment %s: %w", resp.PaymentID, err))
		return
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusCreated
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/payments/"+resp.PaymentID.String())
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
