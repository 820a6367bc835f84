package buildcontext

import (
	"fmt"
	"regexp"
	"strings"
)

// The file context of a template build is selected with glob patterns, as in
// E2B's SDKs (node-glob with dot:true, minimatch syntax). A context hashed
// here must hash the same as in the SDK, so the pattern rules below follow
// minimatch: "*", "?", "[...]" (with "!" or "^" negation and POSIX classes),
// "**" as a whole segment, "{a,b}" alternatives and backslash escapes.
// Extended globs such as "+(a|b)" are refused rather than half-supported.

// globSeg is one "/"-separated part of a compiled pattern.
type globSeg struct {
	src      string         // the pattern text of the part, for identity
	literal  string         // a name without magic (when re == nil && !globstar)
	re       *regexp.Regexp // a name with magic
	globstar bool           // "**"
}

func (s globSeg) matchName(name string) bool {
	switch {
	case s.globstar:
		return name != "." && name != ".."
	case s.re != nil:
		return s.re.MatchString(name)
	default:
		return s.literal == name
	}
}

// compileGlob turns one pattern into its brace alternatives, each a list of
// segments. A trailing "/" leaves an empty last segment (directories only).
func compileGlob(pattern string) ([][]globSeg, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	out := make([][]globSeg, 0, len(alts))
	for _, alt := range alts {
		segs, err := compileParts(alt)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		out = append(out, segs)
	}
	return out, nil
}

func compileParts(p string) ([]globSeg, error) {
	parts := normalizeParts(strings.Split(p, "/"))
	segs := make([]globSeg, 0, len(parts))
	for _, part := range parts {
		s, err := compileSeg(part)
		if err != nil {
			return nil, err
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// normalizeParts drops "." and empty parts and folds "x/..", keeping a
// trailing empty part (a trailing slash) and a lone ".".
func normalizeParts(parts []string) []string {
	trailing := len(parts) > 1 && parts[len(parts)-1] == ""
	var out []string
	for i, p := range parts {
		switch {
		case p == "" && i == 0 && len(parts) > 1:
			out = append(out, "") // absolute: keep the root marker
		case p == "" || p == ".":
		case p == ".." && len(out) > 0 && out[len(out)-1] != ".." && out[len(out)-1] != "**" && out[len(out)-1] != "":
			out = out[:len(out)-1]
		case p == "**" && len(out) > 0 && out[len(out)-1] == "**":
		default:
			out = append(out, p)
		}
	}
	if len(out) == 0 || (len(out) == 1 && out[0] == "") {
		if len(out) == 1 {
			return out
		}
		return []string{"."}
	}
	if trailing {
		out = append(out, "")
	}
	return out
}

func compileSeg(part string) (globSeg, error) {
	if part == "**" {
		return globSeg{src: part, globstar: true}, nil
	}
	if hasExtglob(part) {
		return globSeg{}, fmt.Errorf("extended glob %q is not supported; use *, ?, [...], ** or {a,b}", part)
	}
	var re strings.Builder
	var lit strings.Builder
	magic := false
	re.WriteString("^")
	onlyStars := true
	for i := 0; i < len(part); i++ {
		c := part[i]
		if c != '*' {
			onlyStars = false
		}
		switch c {
		case '\\':
			if i+1 < len(part) {
				i++
				c = part[i]
			}
			lit.WriteByte(c)
			re.WriteString(regexp.QuoteMeta(string(c)))
		case '*':
			magic = true
			for i+1 < len(part) && part[i+1] == '*' {
				i++
			}
			re.WriteString(`[^/]*`)
		case '?':
			magic = true
			re.WriteString(`[^/]`)
		case '[':
			class, n, ok := bracketClass(part[i:])
			if !ok {
				lit.WriteByte(c)
				re.WriteString(`\[`)
				continue
			}
			magic = true
			re.WriteString(class)
			i += n - 1
		default:
			lit.WriteByte(c)
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if !magic {
		return globSeg{src: part, literal: lit.String()}, nil
	}
	re.WriteString("$")
	src := re.String()
	if onlyStars {
		src = `^[^/]+$` // a lone "*" never matches an empty name
	}
	compiled, err := regexp.Compile(src)
	if err != nil {
		return globSeg{}, fmt.Errorf("part %q: %w", part, err)
	}
	return globSeg{src: part, re: compiled}, nil
}

func hasExtglob(part string) bool {
	for i := 0; i+1 < len(part); i++ {
		if part[i] == '\\' {
			i++
			continue
		}
		if strings.IndexByte("+@!?*", part[i]) >= 0 && part[i+1] == '(' {
			return true
		}
	}
	return false
}

// bracketClass translates "[...]" at the start of s into a Go class and
// reports how many bytes it used; ok is false for an unclosed bracket.
func bracketClass(s string) (class string, n int, ok bool) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^")
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return b.String(), i + 1, true
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return "", 0, false
			}
			b.WriteString(s[i : i+2+end+2])
			i += 2 + end + 2
		case c == '\\' && i+1 < len(s):
			b.WriteString(regexp.QuoteMeta(string(s[i+1])))
			i += 2
		case c == '-' && !first && i+1 < len(s) && s[i+1] != ']':
			b.WriteString("-")
			i++
		default:
			if strings.IndexByte(`\[]^-`, c) >= 0 {
				b.WriteString(`\`)
			}
			b.WriteByte(c)
			i++
		}
		first = false
	}
	return "", 0, false
}

// expandBraces expands "{a,b}" alternatives (nested too). A brace group
// without a comma stays literal, as in brace-expansion.
func expandBraces(p string) ([]string, error) {
	open := -1
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if p[i] == '{' {
			open = i
			break
		}
	}
	if open < 0 {
		return []string{p}, nil
	}
	depth, closeAt := 0, -1
	var commas []int
	for i := open; i < len(p) && closeAt < 0; i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				closeAt = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if closeAt < 0 || len(commas) == 0 {
		if closeAt >= 0 && strings.Contains(p[open:closeAt], "..") {
			return nil, fmt.Errorf("brace sequences such as {1..3} are not supported")
		}
		// Literal brace: keep it and expand what follows.
		rest, err := expandBraces(p[open+1:])
		if err != nil {
			return nil, err
		}
		out := make([]string, len(rest))
		for i, r := range rest {
			out[i] = p[:open+1] + r
		}
		return out, nil
	}
	var alts []string
	start := open + 1
	for _, c := range append(commas, closeAt) {
		alts = append(alts, p[start:c])
		start = c + 1
	}
	tails, err := expandBraces(p[closeAt+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range alts {
		heads, err := expandBraces(p[:open] + a)
		if err != nil {
			return nil, err
		}
		for _, h := range heads {
			for _, t := range tails {
				out = append(out, h+t)
			}
		}
	}
	if len(out) > 10000 {
		return nil, fmt.Errorf("too many brace alternatives")
	}
	return out, nil
}

// matchPath is minimatch's match of a "/"-separated path (dot:true).
func matchPath(path string, pat []globSeg) bool {
	return matchParts(strings.Split(path, "/"), pat)
}

func matchParts(file []string, pat []globSeg) bool {
	if len(pat) == 0 {
		return len(file) == 0 || (len(file) == 1 && file[0] == "")
	}
	if pat[0].globstar {
		rest := pat[1:]
		if len(rest) == 0 {
			if len(file) == 0 {
				return false
			}
			for _, f := range file {
				if f == "." || f == ".." {
					return false
				}
			}
			return true
		}
		for i := 0; i <= len(file); i++ {
			if matchParts(file[i:], rest) {
				return true
			}
			if i < len(file) && (file[i] == "." || file[i] == "..") {
				return false
			}
		}
		return false
	}
	if len(file) == 0 {
		return false
	}
	if pat[0].re == nil && pat[0].literal == "" && !pat[0].globstar {
		// An empty part (from a trailing slash) matches only an empty part.
		if file[0] != "" {
			return false
		}
	} else if !pat[0].matchName(file[0]) {
		return false
	}
	return matchParts(file[1:], pat[1:])
}

// Glob is a compiled pattern in the syntax of COPY sources, for callers that
// select files the same way (a folder upload's include and exclude).
type Glob struct{ alts [][]globSeg }

// CompileGlob compiles pattern; its error names the pattern.
func CompileGlob(pattern string) (Glob, error) {
	alts, err := compileGlob(pattern)
	return Glob{alts: alts}, err
}

// Match reports whether the "/"-separated path rel matches one of the
// pattern's brace alternatives.
func (g Glob) Match(rel string) bool {
	for _, pat := range g.alts {
		if matchPath(rel, pat) {
			return true
		}
	}
	return false
}
