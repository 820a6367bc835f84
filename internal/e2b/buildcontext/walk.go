package buildcontext

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// globWalker finds the entries of a context directory that patterns match,
// with node-glob's rules as E2B's SDK uses them (dot:true, no follow):
// a "**" does not descend into symbolic links, except that a "**" that is not
// the first part of its pattern looks one level into a linked directory, and
// ignore patterns ending in "/**" prune whole directories. Unlike node-glob
// it never looks through a link out of the context (see contextScope), and
// Terraform's and OpenTofu's working files are never found (workingFile).
type globWalker struct {
	dir     string
	scope   *contextScope
	root    *globEntry
	ignores [][]globSeg // relative ignore patterns
	pruners [][]globSeg // the ignore patterns ending in "**"
	seen    map[*globEntry]bool
	found   []*globEntry
	err     error           // the first link the walk would have to follow out of the context
	working map[string]bool // working files left out, for messages
}

type entryKind int

const (
	kindUnknown entryKind = iota
	kindDir
	kindFile
	kindLink
	kindOther
	kindMissing
)

// globEntry is one path under the context, as glob sees it: literal, never
// resolved, so a file reached through a linked directory keeps that path.
type globEntry struct {
	full, rel, name string
	parent          *globEntry
	kind            entryKind
	children        map[string]*globEntry
	listed          []*globEntry
	readDone        bool
	noChildren      bool
}

func newGlobWalker(dir string, scope *contextScope, ignore []string) (*globWalker, error) {
	w := &globWalker{dir: dir, scope: scope, working: map[string]bool{}}
	for _, ig := range ignore {
		alts, err := compileGlob(ig)
		if err != nil {
			return nil, err
		}
		for _, segs := range alts {
			w.ignores = append(w.ignores, segs)
			if last := segs[len(segs)-1]; last.globstar {
				w.pruners = append(w.pruners, segs)
			}
		}
	}
	return w, nil
}

func (e *globEntry) child(name string) *globEntry {
	switch name {
	case "", ".":
		return e
	case "..":
		if e.parent != nil {
			return e.parent
		}
		return e
	}
	if e.children == nil {
		e.children = map[string]*globEntry{}
	}
	if c, ok := e.children[name]; ok {
		return c
	}
	rel := name
	if e.rel != "" {
		rel = e.rel + "/" + name
	}
	c := &globEntry{full: filepath.Join(e.full, name), rel: rel, name: name, parent: e}
	e.children[name] = c
	return c
}

func kindOf(m fs.FileMode) entryKind {
	switch {
	case m&fs.ModeSymlink != 0:
		return kindLink
	case m.IsDir():
		return kindDir
	case m.IsRegular():
		return kindFile
	}
	return kindOther
}

func (e *globEntry) lstat() {
	if e.kind != kindUnknown {
		return
	}
	fi, err := os.Lstat(e.full)
	if err != nil {
		e.kind = kindMissing
		return
	}
	e.kind = kindOf(fi.Mode())
}

// canReaddir is path-scurry's: unknown entries, directories and links may
// be listed until a listing fails.
func (e *globEntry) canReaddir() bool {
	if e.noChildren {
		return false
	}
	return e.kind == kindUnknown || e.kind == kindDir || e.kind == kindLink
}

func (e *globEntry) readdir() []*globEntry {
	if e.readDone {
		return e.listed
	}
	e.readDone = true
	des, err := os.ReadDir(e.full)
	if err != nil {
		e.noChildren = true
		return nil
	}
	for _, d := range des {
		c := e.child(d.Name())
		c.kind = kindOf(d.Type())
		e.listed = append(e.listed, c)
	}
	return e.listed
}

func (w *globWalker) relOf(e *globEntry) string {
	if e.rel == "" {
		return "."
	}
	return e.rel
}

func (w *globWalker) ignored(e *globEntry) bool {
	if w.seen[e] {
		return true
	}
	if e.rel != "" && workingFile(e.rel) {
		w.working[e.rel] = true
		return true
	}
	return w.userIgnored(w.relOf(e))
}

// userIgnored applies the ignore patterns (node-glob's rule) to a path.
func (w *globWalker) userIgnored(rel string) bool {
	for _, p := range w.ignores {
		if matchPath(rel, p) || matchPath(rel+"/", p) {
			return true
		}
	}
	return false
}

func (w *globWalker) childrenIgnored(e *globEntry) bool {
	if e.rel != "" && workingFile(e.rel) {
		return true // nothing under .terraform is ever looked at
	}
	rel := w.relOf(e) + "/"
	for _, p := range w.pruners {
		if matchPath(rel, p) {
			return true
		}
	}
	return false
}

// reachable reports whether e can be looked at: the folders on its way
// resolve inside the context. A link out of the context on the way is the
// walk's error, unless the link is ignored.
func (w *globWalker) reachable(e *globEntry) bool {
	if e.parent == nil || e.parent.parent == nil {
		return true
	}
	_, err := w.scope.resolve(e.parent.rel)
	if err == nil {
		return true
	}
	w.fail(err)
	return false
}

// listable reports whether e can be listed. A link to a folder outside the
// context, which the SDK would list, is the walk's error unless ignored; a
// link to a file outside leaves nothing to list, as for the SDK.
func (w *globWalker) listable(e *globEntry) bool {
	if e.parent == nil {
		return true
	}
	_, err := w.scope.resolve(e.rel)
	if err == nil {
		return true
	}
	var esc *LinkEscapeError
	if !errors.As(err, &esc) || w.excluded(esc) {
		return false
	}
	if esc.Link == e.rel {
		// Where the link leads is looked up (not listed, not read) to tell
		// a folder from a file.
		if fi, serr := os.Stat(e.full); serr != nil || !fi.IsDir() {
			return false
		}
	}
	w.fail(err)
	return false
}

// excluded reports whether the link is one the user excluded (or a working
// file): no error, what is behind it is simply not sent.
func (w *globWalker) excluded(esc *LinkEscapeError) bool {
	return w.userIgnored(esc.Link) || workingFile(esc.Link)
}

// fail records the first link out of the context the walk would have to
// follow, unless excluded. Other errors (a loop of links) leave the entry
// unreadable, as they do for the SDK.
func (w *globWalker) fail(err error) {
	var esc *LinkEscapeError
	if !errors.As(err, &esc) || w.excluded(esc) {
		return
	}
	if w.err == nil {
		w.err = err
	}
}

func (w *globWalker) readdir(e *globEntry) []*globEntry {
	if !e.readDone && !w.listable(e) {
		e.readDone, e.noChildren = true, true
	}
	return e.readdir()
}

// globPat is a pattern from one position on; follow is shared by all
// positions of one pattern, as node-glob keeps it per Pattern object.
type globPat struct {
	segs   []globSeg
	index  int
	follow []bool
	key    string
}

func newGlobPat(segs []globSeg) *globPat {
	f := make([]bool, len(segs))
	for i := range f {
		f[i] = true
	}
	return &globPat{segs: segs, follow: f, key: segKey(segs)}
}

func segKey(segs []globSeg) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = s.src
	}
	return strings.Join(parts, "/")
}

func (p *globPat) seg() globSeg  { return p.segs[p.index] }
func (p *globPat) hasMore() bool { return p.index+1 < len(p.segs) }
func (p *globPat) rest() *globPat {
	if !p.hasMore() {
		return nil
	}
	return &globPat{segs: p.segs, index: p.index + 1, follow: p.follow, key: segKey(p.segs[p.index+1:])}
}
func (p *globPat) isString() bool { s := p.seg(); return !s.globstar && s.re == nil }
func (p *globPat) checkFollow() bool {
	return p.index != 0 && p.seg().globstar && p.follow[p.index]
}
func (p *globPat) markFollow() bool {
	if !p.checkFollow() {
		return false
	}
	p.follow[p.index] = false
	return true
}

// globProc is node-glob's Processor: matches and sub-walks for one step.
type globProc struct {
	walked  map[string]map[string]bool // entry path -> pattern keys
	matches map[*globEntry]bool        // entry -> only if it is a directory
	order   []*globEntry
	subs    map[*globEntry][]*globPat
	subList []*globEntry
}

func newGlobProc(walked map[string]map[string]bool) *globProc {
	cp := make(map[string]map[string]bool, len(walked))
	for k, v := range walked {
		m := make(map[string]bool, len(v))
		for kk := range v {
			m[kk] = true
		}
		cp[k] = m
	}
	return &globProc{walked: cp, matches: map[*globEntry]bool{}, subs: map[*globEntry][]*globPat{}}
}

func (g *globProc) hasWalked(e *globEntry, p *globPat) bool { return g.walked[e.full][p.key] }
func (g *globProc) storeWalked(e *globEntry, p *globPat) {
	if g.walked[e.full] == nil {
		g.walked[e.full] = map[string]bool{}
	}
	g.walked[e.full][p.key] = true
}

func (g *globProc) addMatch(e *globEntry, ifDir bool) {
	cur, ok := g.matches[e]
	if !ok {
		g.order = append(g.order, e)
		g.matches[e] = ifDir
		return
	}
	g.matches[e] = cur && ifDir
}

func (g *globProc) addSub(e *globEntry, p *globPat) {
	if !e.canReaddir() {
		return
	}
	list, ok := g.subs[e]
	if !ok {
		g.subList = append(g.subList, e)
	}
	for _, q := range list {
		if q.key == p.key {
			return
		}
	}
	g.subs[e] = append(list, p)
}

func (g *globProc) processPatterns(t0 *globEntry, pats []*globPat) {
	for _, pat := range pats {
		t := t0
		g.storeWalked(t, pat)
		changed := false
		for pat.isString() && pat.hasMore() {
			t = t.child(pat.seg().literal)
			pat = pat.rest()
			changed = true
		}
		if changed {
			if g.hasWalked(t, pat) {
				continue
			}
			g.storeWalked(t, pat)
		}
		s := pat.seg()
		switch {
		case pat.isString():
			ifDir := s.literal == "" || s.literal == "." || s.literal == ".."
			g.addMatch(t.child(s.literal), ifDir)
		case s.globstar:
			if t.kind != kindLink || pat.checkFollow() {
				g.addSub(t, pat)
			}
			rest := pat.rest()
			if rest == nil {
				g.addMatch(t, false)
			} else if rs := rest.seg(); rest.isString() && (rs.literal == "" || rs.literal == ".") && !rest.hasMore() {
				g.addMatch(t, true)
			}
		default:
			g.addSub(t, pat)
		}
	}
}

func (g *globProc) filterEntries(parent *globEntry, entries []*globEntry) *globProc {
	out := newGlobProc(g.walked)
	for _, e := range entries {
		for _, pat := range g.subs[parent] {
			rest := pat.rest()
			s := pat.seg()
			switch {
			case s.globstar:
				out.testGlobstar(e, pat, rest)
			case s.re != nil:
				out.testName(e, s, rest)
			default:
				out.testName(e, s, rest)
			}
		}
	}
	return out
}

func (g *globProc) testGlobstar(e *globEntry, pat, rest *globPat) {
	if !pat.hasMore() {
		g.addMatch(e, false)
	}
	if e.canReaddir() {
		switch {
		case e.kind != kindLink:
			g.addSub(e, pat)
		case rest != nil && pat.checkFollow():
			g.addSub(e, rest)
		case pat.markFollow():
			g.addSub(e, pat)
		}
	}
	if rest != nil {
		rs := rest.seg()
		if rest.isString() && rs.literal != ".." && rs.literal != "" && rs.literal != "." {
			g.testName(e, rs, rest.rest())
		} else if rs.re != nil {
			g.testName(e, rs, rest.rest())
		}
	}
}

func (g *globProc) testName(e *globEntry, s globSeg, rest *globPat) {
	if !s.matchName(e.name) {
		return
	}
	if rest == nil {
		g.addMatch(e, false)
	} else {
		g.addSub(e, rest)
	}
}

func (w *globWalker) match(e *globEntry, ifDir bool) {
	if !w.reachable(e) {
		return
	}
	e.lstat()
	if e.kind == kindMissing || (ifDir && !e.canReaddir()) || w.ignored(e) {
		return
	}
	w.seen[e] = true
	w.found = append(w.found, e)
}

func (w *globWalker) walk2(t *globEntry, pats []*globPat, g *globProc) {
	if w.childrenIgnored(t) {
		return
	}
	g.processPatterns(t, pats)
	for _, m := range g.order {
		if !w.ignored(m) {
			w.match(m, g.matches[m])
		}
	}
	for _, target := range g.subList {
		if !target.canReaddir() {
			continue
		}
		w.walk3(target, w.readdir(target), g)
	}
}

func (w *globWalker) walk3(t *globEntry, entries []*globEntry, g *globProc) {
	res := g.filterEntries(t, entries)
	for _, m := range res.order {
		if !w.ignored(m) {
			w.match(m, res.matches[m])
		}
	}
	for _, target := range res.subList {
		if !target.canReaddir() {
			continue
		}
		w.walk2(target, res.subs[target], newGlobProc(res.walked))
	}
}

// glob returns the entries one pattern matches, in no particular order.
func (w *globWalker) glob(pattern string) ([]*globEntry, error) {
	alts, err := compileGlob(pattern)
	if err != nil {
		return nil, err
	}
	pats := make([]*globPat, 0, len(alts))
	for _, segs := range alts {
		if segs[0].literal == "" && !segs[0].globstar && segs[0].re == nil && len(segs) > 1 {
			return nil, errAbsolutePattern(pattern)
		}
		pats = append(pats, newGlobPat(segs))
	}
	// Each search starts from fresh entries, as each SDK glob call does.
	w.root = &globEntry{full: w.dir, kind: kindDir}
	w.seen, w.found = map[*globEntry]bool{}, nil
	w.walk2(w.root, pats, newGlobProc(map[string]map[string]bool{}))
	if w.err != nil {
		return nil, w.err
	}
	return w.found, nil
}
