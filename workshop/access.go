package workshop

import (
	"crypto/subtle"
	"fmt"
	"os"
	"path/filepath"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/outboxlab/outboxlab/badinput"
	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFile is the room's SSH host key, made once in the room's
// directory: attendees' known_hosts keep trusting the room across restarts.
const HostKeyFile = "ssh_host_ed25519"

// newSSH builds the SSH server: the host key, who is let in, and the
// learners' sessions.
func (r *Room) newSSH() (*ssh.Server, error) {
	keyPath := filepath.Join(r.dir, HostKeyFile)
	opts := []ssh.Option{
		wish.WithHostKeyPath(keyPath),
		wish.WithMiddleware(func(ssh.Handler) ssh.Handler { return r.handle }),
	}
	switch {
	case r.cfg.AuthorizedKeys != "" || r.cfg.Password != "":
		if r.cfg.AuthorizedKeys != "" {
			keys, err := readAuthorizedKeys(r.cfg.AuthorizedKeys)
			if err != nil {
				return nil, badinput.Wrap(err)
			}
			opts = append(opts, wish.WithPublicKeyAuth(func(_ ssh.Context, key ssh.PublicKey) bool {
				for _, k := range keys {
					if ssh.KeysEqual(key, k) {
						return true
					}
				}
				return false
			}))
		}
		if pw := r.cfg.Password; pw != "" {
			opts = append(opts, wish.WithPasswordAuth(func(_ ssh.Context, given string) bool {
				return subtle.ConstantTimeCompare([]byte(given), []byte(pw)) == 1
			}))
		}
	default:
		// Any user name on loopback: a key is taken when the client
		// offers one (its fingerprint tells two learners of one name
		// apart), keyboard-interactive with no question otherwise.
		opts = append(opts,
			wish.WithPublicKeyAuth(func(ssh.Context, ssh.PublicKey) bool { return true }),
			wish.WithKeyboardInteractiveAuth(func(ssh.Context, gossh.KeyboardInteractiveChallenge) bool { return true }),
		)
	}
	s, err := wish.NewServer(opts...)
	if err != nil {
		return nil, fmt.Errorf("workshop: ssh server: %w", err)
	}
	// The key is the room's secret: readable by its owner only.
	if err := os.Chmod(keyPath, 0o600); err != nil {
		return nil, fmt.Errorf("workshop: host key: %w", err)
	}
	return s, nil
}

// fingerprint is the session's key's SHA256 fingerprint, "" without a key.
func fingerprint(sess ssh.Session) string {
	if k := sess.PublicKey(); k != nil {
		return gossh.FingerprintSHA256(k)
	}
	return ""
}
