package store

import (
	"maps"
	"time"
)

type secret struct {
	id        string
	name      string // canonical (lower case)
	versions  []string
	metadata  map[string]string
	createdAt time.Time
	updatedAt time.Time
}

// Secret is what may be shown of a secret: everything but its values.
type Secret struct {
	ID             string
	Name           string
	CurrentVersion int64
	Metadata       map[string]string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (sc *secret) view() Secret {
	return Secret{ID: sc.id, Name: sc.name, CurrentVersion: int64(len(sc.versions)),
		Metadata: maps.Clone(sc.metadata), CreatedAt: sc.createdAt, UpdatedAt: sc.updatedAt}
}

func (st *Store) secretLocked(idOrName string) *secret {
	if sc := st.secrets[idOrName]; sc != nil {
		return sc
	}
	for _, sc := range st.secrets {
		if sc.name == idOrName {
			return sc
		}
	}
	return nil
}

// CreateSecret keeps a new secret with its first version; ok is false when
// a secret of that (canonical) name exists.
func (st *Store) CreateSecret(id, name, value string, metadata map[string]string) (Secret, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.secretLocked(name) != nil {
		return Secret{}, false
	}
	now := time.Now().UTC()
	sc := &secret{id: id, name: name, versions: []string{value},
		metadata: maps.Clone(metadata), createdAt: now, updatedAt: now}
	st.secrets[id] = sc
	return sc.view(), true
}

// Secret finds a secret by ID or canonical name.
func (st *Store) Secret(idOrName string) (Secret, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if sc := st.secretLocked(idOrName); sc != nil {
		return sc.view(), true
	}
	return Secret{}, false
}

// Secrets lists every secret, in no order.
func (st *Store) Secrets() []Secret {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]Secret, 0, len(st.secrets))
	for _, sc := range st.secrets {
		out = append(out, sc.view())
	}
	return out
}

// AddSecretVersion appends value as the secret's current version and, when
// metadata is not nil, replaces its metadata.
func (st *Store) AddSecretVersion(idOrName, value string, metadata map[string]string) (Secret, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc := st.secretLocked(idOrName)
	if sc == nil {
		return Secret{}, false
	}
	sc.versions = append(sc.versions, value)
	if metadata != nil {
		sc.metadata = maps.Clone(metadata)
	}
	sc.updatedAt = time.Now().UTC()
	return sc.view(), true
}

// DeleteSecret forgets a secret; ok is false when there was none.
func (st *Store) DeleteSecret(idOrName string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc := st.secretLocked(idOrName)
	if sc == nil {
		return false
	}
	delete(st.secrets, sc.id)
	return true
}

// SecretValue is the current version of the secret named name (canonical).
func (st *Store) SecretValue(name string) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc := st.secretLocked(name)
	if sc == nil {
		return "", false
	}
	return sc.versions[len(sc.versions)-1], true
}
