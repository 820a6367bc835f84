package buildcontext

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A COPY never reads through a symbolic link that leads out of the context
// directory: Docker never follows a link out of its build context, and the
// files behind such a link (credentials, a home folder) are not the
// template's. E2B's SDK does follow them (node-glob lists linked folders and
// node-tar reads through them), so this is where the provider departs from
// the SDK on purpose. Links themselves are sent as links, wherever they
// point: E2B gets the link, not what it points at.

// LinkEscapeError is a link in the context that a COPY would have to follow
// out of the context.
type LinkEscapeError struct {
	Link   string // the link, as a path in the context
	Via    string // the link of a chain that leaves the context; "" when Link itself does
	Target string // where the leaving link points, as written in it
}

func (e *LinkEscapeError) Error() string {
	if e.Via == "" {
		return fmt.Sprintf("%q is a symbolic link to %q, outside the context directory, and COPY never follows a link out of the context; "+
			"point it inside the context, move what it points at into the context, or exclude it (ignore patterns or .dockerignore)", e.Link, e.Target)
	}
	return fmt.Sprintf("%q leads outside the context directory through the symbolic link %q -> %q, and COPY never follows a link out of the context; "+
		"point the links inside the context, move what they point at into the context, or exclude %q (ignore patterns or .dockerignore)", e.Link, e.Via, e.Target, e.Link)
}

// maxLinkHops bounds link chains, as the kernel's ELOOP does.
const maxLinkHops = 40

// contextScope resolves paths of the context as the operating system does,
// one link at a time, and stops at the first link that leads outside,
// without looking at anything out there.
type contextScope struct {
	root    string // the context directory, links resolved
	spelled string // the context directory as given, made absolute
	cache   map[string]scopeResult
}

type scopeResult struct {
	real string
	err  error
}

func newContextScope(dir string) (*contextScope, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("context directory: %w", err)
	}
	return &contextScope{root: real, spelled: abs, cache: map[string]scopeResult{}}, nil
}

const sep = string(filepath.Separator)

// inside reports whether p (absolute, clean) is the context or under it.
func (s *contextScope) inside(p string) bool {
	return p == s.root || s.root == sep || strings.HasPrefix(p, s.root+sep)
}

// above reports whether p is a folder the context is in: one of the real
// folders of its own path, which can be passed through without a look.
func (s *contextScope) above(p string) bool {
	return p == sep || strings.HasPrefix(s.root, p+sep)
}

// resolve returns the real path of rel (a "/"-separated path in the
// context) with every link on the way followed, or a *LinkEscapeError for
// the first link that leads outside. A path that does not exist resolves to
// "" without error: there is nothing to read.
func (s *contextScope) resolve(rel string) (string, error) {
	if r, ok := s.cache[rel]; ok {
		return r.real, r.err
	}
	real, err := s.walk(rel)
	s.cache[rel] = scopeResult{real, err}
	return real, err
}

func (s *contextScope) walk(rel string) (string, error) {
	type part struct {
		name string
		own  bool // a part of rel itself, not of a link's target
	}
	var todo []part
	for _, p := range splitPath(rel) {
		todo = append(todo, part{p, true})
	}
	cur := s.root
	var taken []string // the parts of rel walked so far
	// link: the part of rel being resolved when it is a link (as rel spells
	// it) and where it is; via and target: the last link followed.
	link, linkAt, via, target := "", "", "", ""
	hops := 0
	escape := func() error {
		e := &LinkEscapeError{Link: link, Via: via, Target: target}
		if via == linkAt {
			e.Via = ""
		}
		return e
	}
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		if p.own {
			taken = append(taken, p.name)
		}
		if p.name == ".." {
			cur = filepath.Dir(cur) // cur is real: its parent is too
			continue
		}
		next := filepath.Join(cur, p.name)
		if !s.inside(next) {
			if link != "" && s.above(next) {
				cur = next // a link's way back down into the context
				continue
			}
			if link == "" {
				return "", fmt.Errorf("%q leaves the context directory", rel)
			}
			return "", escape()
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return "", nil // missing: nothing to read
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("%q: too many levels of symbolic links", rel)
		}
		if target, err = os.Readlink(next); err != nil {
			return "", err
		}
		via = s.relOf(next)
		if p.own {
			link, linkAt = path.Join(taken...), via
		}
		var parts []string
		if filepath.IsAbs(target) {
			t := filepath.Clean(target)
			if t == s.spelled || strings.HasPrefix(t, s.spelled+sep) {
				t = s.root + t[len(s.spelled):] // the context as the user spells it
			}
			cur = sep
			parts = splitPath(filepath.ToSlash(t))
		} else {
			parts = splitPath(filepath.ToSlash(target))
		}
		linked := make([]part, 0, len(parts)+len(todo))
		for _, q := range parts {
			linked = append(linked, part{q, false})
		}
		todo = append(linked, todo...)
	}
	if !s.inside(cur) {
		return "", escape() // a link to a folder the context is in
	}
	return cur, nil
}

// relOf is p (inside the context) as a "/"-separated path in it.
func (s *contextScope) relOf(p string) string {
	r, err := filepath.Rel(s.root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// splitPath splits a "/"-separated path into its parts, without empty
// parts and ".".
func splitPath(p string) []string {
	var out []string
	for _, part := range strings.Split(p, "/") {
		if part != "" && part != "." {
			out = append(out, part)
		}
	}
	return out
}
