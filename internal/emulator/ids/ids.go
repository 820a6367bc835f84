// Package ids makes the random identifiers the emulator hands out: sandbox,
// template and build IDs, UUIDs and secrets in hex.
//
// It imports nothing of the emulator.
package ids

import (
	"crypto/rand"
	"encoding/hex"
)

// Hex returns n random bytes in hex.
func Hex(n int) string {
	return hex.EncodeToString(random(n))
}

const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// New returns prefix + n characters of [a-z0-9].
func New(prefix string, n int) string {
	b := random(n)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}

// UUID returns a random (version 4) UUID.
func UUID() string {
	b := random(16)
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func random(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}
