package pg

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// ScramSecret is the SCRAM-SHA-256 secret PostgreSQL stores for password
// (RFC 7677, as pg_authid keeps it), hashed with the given iterations:
// CREATE ROLE … PASSWORD takes it in place of the password, so that the
// server never sees the password, and the iterations are the caller's.
// Every connection's client repeats that many rounds of PBKDF2, which
// PostgreSQL makes 4096 to slow a guess at a password a person chose.
// A password of random bytes leaves nothing to guess: such a role can
// take fewer, and each of its connections costs its client less.
func ScramSecret(password string, iterations int) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("scram secret: %w", err)
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", fmt.Errorf("scram secret: %w", err)
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}
