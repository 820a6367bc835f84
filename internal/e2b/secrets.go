package e2b

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Secret is a secret's metadata; E2B never returns its value.
type Secret struct {
	SecretID             string
	Name                 string // canonical: lower case
	CurrentVersion       int64
	Metadata             map[string]string
	CreatedAt, UpdatedAt time.Time
}

// SecretNamePattern is E2B's rule for secret names (1 to 128 characters).
var SecretNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// SecretRef is the marker E2B's egress replaces with the secret's value.
func SecretRef(name string) string { return "${e2b.secrets." + name + "}" }

// CanonicalSecretName is the name as E2B stores it, or an error saying why
// E2B would refuse it.
func CanonicalSecretName(name string) (string, error) {
	if !SecretNamePattern.MatchString(name) {
		return "", fmt.Errorf("secret name %q must be 1 to 128 letters, digits, '_' or '-'", name)
	}
	canon := strings.ToLower(name)
	if strings.HasPrefix(canon, "sec_") {
		return "", fmt.Errorf("secret name %q starts with \"sec_\", which E2B reserves for secret IDs", name)
	}
	return canon, nil
}

// E2B's limits on a secret's metadata.
const (
	SecretMetadataMaxEntries    = 32
	SecretMetadataMaxKeyBytes   = 128
	SecretMetadataMaxValueBytes = 1024
	SecretMetadataMaxBytes      = 8192 // keys and values together
)

// What remains of E2B's limits for the caller's own metadata: CreateSecret
// stores its create token (IdempotencyMetadataKey and 32 hex digits) in it.
const (
	createTokenBytes           = 16 // random bytes of newCreateToken's token
	createTokenMetadataBytes   = len(IdempotencyMetadataKey) + 2*createTokenBytes
	SecretMetadataUserEntries  = SecretMetadataMaxEntries - 1
	SecretMetadataUserMaxBytes = SecretMetadataMaxBytes - createTokenMetadataBytes
)

// CheckSecretMetadata says why E2B would refuse metadata, together with the
// create token CreateSecret adds, or nil.
func CheckSecretMetadata(m map[string]string) error {
	if _, taken := m[IdempotencyMetadataKey]; taken {
		return fmt.Errorf("metadata key %q is reserved for the client's own use", IdempotencyMetadataKey)
	}
	if len(m) > SecretMetadataUserEntries {
		return fmt.Errorf("metadata has %d entries; at most %d are allowed (E2B's %d, less one for the create token)",
			len(m), SecretMetadataUserEntries, SecretMetadataMaxEntries)
	}
	total := 0
	for k, v := range m {
		if len(k) > SecretMetadataMaxKeyBytes {
			return fmt.Errorf("metadata key %q is %d bytes long; E2B allows at most %d", k, len(k), SecretMetadataMaxKeyBytes)
		}
		if len(v) > SecretMetadataMaxValueBytes {
			return fmt.Errorf("metadata value of %q is %d bytes long; E2B allows at most %d", k, len(v), SecretMetadataMaxValueBytes)
		}
		total += len(k) + len(v)
	}
	if total > SecretMetadataUserMaxBytes {
		return fmt.Errorf("metadata totals %d bytes of keys and values; at most %d are allowed (E2B's %d, less %d for the create token)",
			total, SecretMetadataUserMaxBytes, SecretMetadataMaxBytes, createTokenMetadataBytes)
	}
	return nil
}

type wireSecret struct {
	SecretID       string            `json:"secretID"`
	Name           string            `json:"name"`
	CurrentVersion int64             `json:"currentVersion"`
	Metadata       map[string]string `json:"metadata"`
	CreatedAt      time.Time         `json:"createdAt"`
	UpdatedAt      time.Time         `json:"updatedAt"`
}

// toSecret converts E2B's answer, without the client's create token.
func (w wireSecret) toSecret() *Secret {
	s := Secret(w)
	s.Metadata = userMetadata(w.Metadata)
	return &s
}

type wireSecretWrite struct {
	Name     string            `json:"name,omitempty"`
	Value    string            `json:"value"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// CreateSecret stores value as the first version of a new secret, never
// two and never adopting one it did not make. E2B keeps secret names unique
// (409 for a taken one). The create carries a random create token in the
// metadata (IdempotencyMetadataKey; the client strips it from what it
// returns, and an update's new metadata drops it). When the answer is lost,
// the secret of the name is this create's only when it carries the token;
// found nowhere, the create is sent again (a first one that lands late makes
// it fail as taken, and is then found by its token). A secret without the
// token is an *ExistsError (IsExists).
func (c *Client) CreateSecret(ctx context.Context, name, value string, metadata map[string]string) (*Secret, error) {
	canon, err := CanonicalSecretName(name)
	if err != nil {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	if value == "" {
		return nil, fmt.Errorf("create secret %q: the value must not be empty", name)
	}
	if err := CheckSecretMetadata(metadata); err != nil {
		return nil, fmt.Errorf("create secret %q: %w", name, err)
	}
	token, err := newCreateToken()
	if err != nil {
		return nil, err
	}
	withToken := maps.Clone(metadata)
	if withToken == nil {
		withToken = map[string]string{}
	}
	withToken[IdempotencyMetadataKey] = token
	op := "create secret " + strconv.Quote(name)
	return createKept(ctx, c, keptCreate[Secret]{
		kind: "secret", name: canon, resendable: true,
		idOf:     func(s *Secret) string { return s.SecretID },
		mayExist: fmt.Sprintf("a secret named %q whose metadata has %s=%s", canon, IdempotencyMetadataKey, token),
		post: func(ctx context.Context) (*Secret, error) {
			var w wireSecret
			_, err := c.callAPI(ctx, apiCall{
				op: op, method: http.MethodPost, path: "/secrets",
				body: wireSecretWrite{Name: name, Value: value, Metadata: withToken}, class: retryRateLimited, out: &w,
			})
			if err != nil {
				return nil, err
			}
			return w.toSecret(), nil
		},
		taken: IsConflict,
		holder: func(ctx context.Context) (string, error) {
			w, err := c.getSecret(ctx, canon)
			if err != nil {
				return "", err
			}
			return w.SecretID, nil
		},
		find: func(ctx context.Context) (*Secret, error) {
			w, err := c.getSecret(ctx, canon)
			switch {
			case IsNotFound(err):
				return nil, nil
			case err != nil:
				return nil, err
			case w.Metadata[IdempotencyMetadataKey] == token:
				return w.toSecret(), nil
			}
			why := "it does not carry this create's token in its metadata"
			if w.Metadata[IdempotencyMetadataKey] != "" {
				why += " but another create's: an earlier create of this client whose answer was lost made it"
			}
			return nil, &ExistsError{Kind: "secret", Name: canon, ID: w.SecretID, Why: why}
		},
	})
}

// UpdateSecret stores value as a new version and replaces the metadata.
// It is retried only on 429: a repeat would add another version.
func (c *Client) UpdateSecret(ctx context.Context, idOrName, value string, metadata map[string]string) (*Secret, error) {
	if value == "" {
		return nil, fmt.Errorf("update secret %q: the value must not be empty", idOrName)
	}
	if err := CheckSecretMetadata(metadata); err != nil {
		return nil, fmt.Errorf("update secret %q: %w", idOrName, err)
	}
	if metadata == nil {
		metadata = map[string]string{} // an absent field would keep the old metadata
	}
	var w wireSecret
	_, err := c.callAPI(ctx, apiCall{
		op: "update secret " + strconv.Quote(idOrName), method: http.MethodPost, path: "/secrets/" + pathSeg(idOrName), subject: idOrName,
		body: struct {
			Value    string            `json:"value"`
			Metadata map[string]string `json:"metadata"` // sent even when empty
		}{value, metadata}, class: retryRateLimited, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return w.toSecret(), nil
}

// GetSecret reads a secret's metadata by ID or canonical name.
func (c *Client) GetSecret(ctx context.Context, idOrName string) (*Secret, error) {
	w, err := c.getSecret(ctx, idOrName)
	if err != nil {
		return nil, err
	}
	return w.toSecret(), nil
}

// getSecret is GetSecret with the metadata as E2B keeps it.
func (c *Client) getSecret(ctx context.Context, idOrName string) (*wireSecret, error) {
	var w wireSecret
	_, err := c.callAPI(ctx, apiCall{
		op: "get secret " + strconv.Quote(idOrName), method: http.MethodGet,
		path: "/secrets/" + pathSeg(idOrName), subject: idOrName, class: retryIdempotent, out: &w,
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// ListSecrets returns every page of the team's secrets.
func (c *Client) ListSecrets(ctx context.Context) ([]Secret, error) {
	var all []Secret
	err := collectPages("list secrets", func(token string) (string, error) {
		q := pageQuery(0, token)
		var w []wireSecret
		res, err := c.callAPI(ctx, apiCall{op: "list secrets", method: http.MethodGet, path: "/secrets", query: q, class: retryIdempotent, out: &w})
		if err != nil {
			return "", err
		}
		for _, s := range w {
			all = append(all, *s.toSecret())
		}
		return res.header.Get("X-Next-Token"), nil
	})
	return all, err
}

// DeleteSecret revokes a secret and all its versions.
func (c *Client) DeleteSecret(ctx context.Context, idOrName string) error {
	_, err := c.callAPI(ctx, apiCall{
		op: "delete secret " + strconv.Quote(idOrName), method: http.MethodDelete,
		path: "/secrets/" + pathSeg(idOrName), subject: idOrName, class: retryIdempotent,
	})
	return err
}
