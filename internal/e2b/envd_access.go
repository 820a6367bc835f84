package e2b

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// sealInfo binds the sealing key to its one use.
const sealInfo = "terraform-provider-e2b sealed envd access v1"

// SealedEnvdAccess returns what reaching sandboxID's envd takes (its access token and domain),
// encrypted and authenticated with a key derived from the client's API key, or nil when this
// client has not seen the sandbox running (created, connected, read) or has no API key. Callers
// may keep it where the token itself must not be readable, such as Terraform private state: only
// a client with the same API key, which could read the token from E2B anyway, can open it.
func (c *Client) SealedEnvdAccess(sandboxID string) []byte {
	a, ok := c.sandboxes.get(sandboxID)
	aead := c.sealer()
	if !ok || a.paused || aead == nil {
		return nil
	}
	plain, _ := json.Marshal(sealedAccess{Token: a.token, Domain: a.domain}) // strings only: cannot fail
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails on supported platforms
	return aead.Seal(nonce, nonce, plain, []byte(sandboxID))
}

// EnvdFromSealed returns an Envd for sandboxID acting as user from a SealedEnvdAccess value,
// without asking the control plane. ok is false when sealed cannot be opened (another API key,
// another sandbox, damaged). The sandbox may have been paused or killed since it was sealed:
// envd calls then fail with IsSandboxNotRunning.
func (c *Client) EnvdFromSealed(sandboxID, user string, sealed []byte) (envd *Envd, ok bool) {
	a, ok := c.openSealed(sandboxID, sealed)
	if !ok {
		return nil, false
	}
	return c.Envd(EnvdTarget{SandboxID: sandboxID, AccessToken: a.Token, Domain: a.Domain, User: user}), true
}

// ResealEnvdAccess is SealedEnvdAccess that returns prev unchanged when it still holds the
// access the client knows: each sealing draws a new nonce, and a refresh that finds nothing
// changed must leave private state as it was (else every run writes a new state version).
func (c *Client) ResealEnvdAccess(sandboxID string, prev []byte) []byte {
	known, ok := c.sandboxes.get(sandboxID)
	if old, okOld := c.openSealed(sandboxID, prev); ok && okOld && !known.paused &&
		old.Token == known.token && old.Domain == known.domain {
		return prev
	}
	return c.SealedEnvdAccess(sandboxID)
}

// openSealed decrypts a SealedEnvdAccess value for sandboxID; ok is false when it cannot.
func (c *Client) openSealed(sandboxID string, sealed []byte) (a sealedAccess, ok bool) {
	aead := c.sealer()
	if aead == nil || len(sealed) < aead.NonceSize() {
		return a, false
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(sandboxID))
	if err != nil || json.Unmarshal(plain, &a) != nil {
		return a, false
	}
	return a, true
}

// KeepAccess lets the client reuse this Envd's access for its sandbox, so that SandboxEnvd
// needs no control-plane read. Call it once a call through an Envd from EnvdFromSealed worked:
// the access is then as good as one just read.
func (e *Envd) KeepAccess() {
	e.c.sandboxes.put(e.t.SandboxID, envdAccess{token: e.t.AccessToken, domain: e.t.Domain})
}

type sealedAccess struct {
	Token  string `json:"t"`
	Domain string `json:"d"`
}

// sealer is the AEAD keyed from the API key, built once; nil without an API key.
func (c *Client) sealer() cipher.AEAD {
	c.sealOnce.Do(func() {
		if c.cfg.APIKey == "" {
			return
		}
		key, err := hkdf.Key(sha256.New, []byte(c.cfg.APIKey), nil, sealInfo, 32)
		if err != nil {
			return
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return
		}
		c.seal, _ = cipher.NewGCM(block)
	})
	return c.seal
}

// sealState is the Client's lazily built sealing key.
type sealState struct {
	sealOnce sync.Once
	seal     cipher.AEAD
}
