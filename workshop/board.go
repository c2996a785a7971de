package workshop

import (
	"net"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// hostKeyFingerprint is the room's host key as ssh prints it on a first
// connection (SHA256:…), for learners to compare; "" if it cannot be read.
func (r *Room) hostKeyFingerprint() string {
	b, err := os.ReadFile(filepath.Join(r.dir, HostKeyFile))
	if err != nil {
		return ""
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return ""
	}
	return gossh.FingerprintSHA256(signer.PublicKey())
}

// reachableAddrs are this machine's addresses a room listening on every
// interface can be reached at: IPv4 first, no loopback or link-local.
func reachableAddrs() []string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var v4, v6 []string
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() || !ipn.IP.IsGlobalUnicast() {
			continue
		}
		if ipn.IP.To4() != nil {
			v4 = append(v4, ipn.IP.String())
		} else {
			v6 = append(v6, "["+ipn.IP.String()+"]")
		}
	}
	return append(v4, v6...)
}
