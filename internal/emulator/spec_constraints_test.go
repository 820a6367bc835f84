package emulator_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// e2bValidationPrefix opens every 400 E2B's request validator answers.
const e2bValidationPrefix = "validation error: error in openapi3filter.RequestError: "

// TestSpecConstraintsAreEnforced walks every operation with a JSON request
// body in E2B's spec and, for every constraint of its body schema (type,
// bounds, lengths, item counts, enum, pattern, required, oneOf/anyOf,
// additionalProperties: false), sends the emulator a body that breaks that
// constraint alone: each must get E2B's 400 ({"code":400,"message":
// "validation error: ..."}), and the valid body it was made from must not.
// The cases come from the spec, not from a list: a constraint a later spec
// adds is tested as soon as the spec is.
func TestSpecConstraintsAreEnforced(t *testing.T) {
	t.Parallel()
	for _, set := range []e2bspec.Set{e2bspec.Newest, e2bspec.Runtime} {
		t.Run(set.Name, func(t *testing.T) {
			t.Parallel()
			ops := bodyOperations(t, set)
			c := emulatortest.Start(t, emulator.Options{})
			constraints, accepted, served := 0, 0, 0
			kinds := map[string]int{}
			var notServed []string
			for _, op := range ops {
				if !checkValidBody(t, c, op) {
					notServed = append(notServed, op.name)
					continue
				}
				served++
				for _, v := range op.violations {
					constraints++
					kinds[v.kind]++
					if !refusedAsE2BDoes(t, c, op, v) {
						accepted++
					}
				}
			}
			t.Logf("%s spec: %d operations with a JSON body, %d served by the emulator: %d constraints, %d violating bodies not refused",
				set.Name, len(ops), served, constraints, accepted)
			t.Logf("%s spec: constraints by kind: %v", set.Name, kinds)
			t.Logf("%s spec: operations the emulator does not serve (E2B's 404 for any body): %v", set.Name, notServed)
			if served == 0 || constraints == 0 {
				t.Fatalf("nothing tested: %d operations, %d constraints", served, constraints)
			}
		})
	}
}

// TestSpecConstraintsTestCanFail runs the same cases with the emulator's
// request validation turned off: most violating bodies then pass, which
// shows the test above would notice a validation gap.
func TestSpecConstraintsTestCanFail(t *testing.T) {
	t.Parallel()
	ops := bodyOperations(t, e2bspec.Newest)
	c := emulatortest.Start(t, emulator.Options{})
	emulator.SetRequestValidation(c.Srv, false)
	total, accepted := 0, 0
	for _, op := range ops {
		if !checkValidBody(t, c, op) {
			continue
		}
		for _, v := range op.violations {
			total++
			st, data, _ := c.API(op.method, op.path, v.body)
			if !isE2BValidation400(st, data) {
				accepted++
			}
		}
	}
	t.Logf("without validation: %d of %d violating bodies not refused as E2B refuses them", accepted, total)
	if accepted == 0 {
		t.Fatal("every violating body was refused without the validator: the test could not fail")
	}
}

// bodyOperation is one operation with a JSON body: a valid body and the
// violating ones made from it.
type bodyOperation struct {
	method, path, name string
	valid              any
	violations         []violation
}

type violation struct {
	constraint string // where and what, e.g. "/network/httpsPorts/0 minimum"
	kind       string // what, e.g. "minimum"
	body       any
}

func bodyOperations(t *testing.T, set e2bspec.Set) []bodyOperation {
	t.Helper()
	doc, err := e2bspec.Load("", set.Control)
	if err != nil {
		t.Fatal(err)
	}
	var ops []bodyOperation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
			op := item.Operations()[method]
			if op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			media := op.RequestBody.Value.Content.Get("application/json")
			if media == nil || media.Schema == nil {
				continue
			}
			schema := media.Schema.Value
			g := &generator{t: t}
			valid := g.valid(schema)
			name := method + " " + path
			if err := schema.VisitJSON(normalize(t, valid)); err != nil {
				t.Errorf("%s: the generated valid body %s does not match the spec: %v", name, mustJSON(t, valid), err)
				continue
			}
			bo := bodyOperation{method: method, path: concretePath(g, path, item, op), name: name, valid: valid}
			for _, v := range g.violations(schema, valid, "") {
				if schema.VisitJSON(normalize(t, v.body)) == nil {
					t.Errorf("%s: the body made to break %s matches the spec: %s", name, v.constraint, mustJSON(t, v.body))
					continue
				}
				bo.violations = append(bo.violations, v)
			}
			ops = append(ops, bo)
		}
	}
	return ops
}

// concretePath fills the path's parameters with valid values.
func concretePath(g *generator, path string, item *openapi3.PathItem, op *openapi3.Operation) string {
	params := append(slices.Clone(item.Parameters), op.Parameters...)
	var query []string
	for _, p := range params {
		if p.Value == nil || p.Value.Schema == nil {
			continue
		}
		v := fmt.Sprint(g.valid(p.Value.Schema.Value))
		switch {
		case p.Value.In == openapi3.ParameterInPath:
			path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", v)
		case p.Value.In == openapi3.ParameterInQuery && p.Value.Required:
			query = append(query, p.Value.Name+"="+v)
		}
	}
	if len(query) > 0 {
		path += "?" + strings.Join(query, "&")
	}
	return path
}

// checkValidBody sends op's valid body, which must not be refused for
// validation; false when the emulator does not serve op at all.
func checkValidBody(t *testing.T, c *emulatortest.Client, op bodyOperation) bool {
	t.Helper()
	st, data, _ := c.API(op.method, op.path, op.valid)
	if st == http.StatusNotFound && strings.Contains(string(data), "no matching operation was found") {
		return false
	}
	if isE2BValidation400(st, data) {
		t.Errorf("%s: the valid body %s was refused: %s", op.name, mustJSON(t, op.valid), data)
	}
	return true
}

func refusedAsE2BDoes(t *testing.T, c *emulatortest.Client, op bodyOperation, v violation) bool {
	t.Helper()
	st, data, _ := c.API(op.method, op.path, v.body)
	if !isE2BValidation400(st, data) {
		t.Errorf("%s with %s broken (%s): %d %s, want E2B's validation 400", op.name, v.constraint, mustJSON(t, v.body), st, data)
		return false
	}
	return true
}

// isE2BValidation400 reports an answer in the shape of E2B's validator's:
// 400 {"code":400,"message":"validation error: error in openapi3filter.RequestError: ..."}.
func isE2BValidation400(status int, data []byte) bool {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	return status == http.StatusBadRequest && json.Unmarshal(data, &e) == nil && e.Code == http.StatusBadRequest &&
		strings.HasPrefix(e.Message, e2bValidationPrefix+"request body has an error: ")
}

// generator makes valid values and violations of schemas.
type generator struct{ t *testing.T }

// valid returns a small value the schema accepts: required properties only.
func (g *generator) valid(s *openapi3.Schema) any {
	switch {
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.AllOf) > 0:
		return g.valid(s.AllOf[0].Value)
	case len(s.OneOf) > 0:
		return g.valid(s.OneOf[0].Value)
	case len(s.AnyOf) > 0:
		return g.valid(s.AnyOf[0].Value)
	}
	switch {
	case s.Type.Is(openapi3.TypeString):
		return g.validString(s)
	case s.Type.Is(openapi3.TypeInteger), s.Type.Is(openapi3.TypeNumber):
		n := 1.0
		if s.Min != nil && n < *s.Min {
			n = *s.Min
			if s.ExclusiveMin.IsTrue() {
				n++
			}
		}
		if s.Max != nil && n > *s.Max {
			n = *s.Max
			if s.ExclusiveMax.IsTrue() {
				n--
			}
		}
		return n
	case s.Type.Is(openapi3.TypeBoolean):
		return false
	case s.Type.Is(openapi3.TypeArray):
		items := []any{}
		for range s.MinItems {
			items = append(items, g.valid(s.Items.Value))
		}
		return items
	default: // object, or untyped with properties
		obj := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				obj[name] = g.valid(p.Value)
			} else {
				obj[name] = "x"
			}
		}
		return obj
	}
}

func (g *generator) validString(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return "2026-01-02T03:04:05Z"
	case "date":
		return "2026-01-02"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	case "uri", "url":
		return "http://127.0.0.1:9/spec-test" // a port nothing listens on
	case "email":
		return "spec@example.com"
	}
	n := max(int(s.MinLength), 4)
	if s.MaxLength != nil && uint64(n) > *s.MaxLength {
		n = int(*s.MaxLength)
	}
	v := strings.Repeat("a", n)
	if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(v) {
		g.t.Errorf("no valid value generated for pattern %q: teach the generator", s.Pattern)
	}
	return v
}

// violations returns, for each constraint of s (a property's or item's
// constraints included), valid with that constraint alone broken. at is
// the JSON pointer of valid in the body.
func (g *generator) violations(s *openapi3.Schema, valid any, at string) []violation {
	var out []violation
	add := func(what string, v any) {
		kind, _, _ := strings.Cut(what, " ")
		out = append(out, violation{constraint: strings.TrimSpace(at + " " + what), kind: kind, body: v})
	}

	for i, sub := range s.AllOf {
		for _, v := range g.violations(sub.Value, valid, at) {
			v.constraint += fmt.Sprintf(" (allOf %d)", i)
			out = append(out, v)
		}
	}
	if alternatives := append(slices.Clone(s.OneOf), s.AnyOf...); len(alternatives) > 0 {
		if v, ok := g.matchingNone(s); ok {
			add("oneOf/anyOf", v)
		}
		// Each alternative's own constraints, where breaking one leaves a
		// value no other alternative accepts.
		for i, alt := range alternatives {
			for _, v := range g.violations(alt.Value, g.valid(alt.Value), at) {
				if s.VisitJSON(normalize(g.t, v.body)) != nil {
					v.constraint += fmt.Sprintf(" (alternative %d)", i)
					out = append(out, v)
				}
			}
		}
	}
	if s.Type != nil && s.Type.IsSingle() {
		add("type "+s.Type.Slice()[0], wrongType(s.Type.Slice()[0]))
	}
	if len(s.Enum) > 0 {
		if s.Type.Is(openapi3.TypeString) {
			add("enum", "not-one-of-the-enum")
		} else {
			add("enum", 987654321)
		}
	}
	if s.Min != nil {
		n := *s.Min - 1
		if s.ExclusiveMin.IsTrue() {
			n = *s.Min
		}
		add("minimum", n)
	}
	if s.Max != nil {
		n := *s.Max + 1
		if s.ExclusiveMax.IsTrue() {
			n = *s.Max
		}
		add("maximum", n)
	}
	if s.Type.Is(openapi3.TypeString) {
		if s.MinLength > 0 {
			add("minLength", strings.Repeat("a", int(s.MinLength)-1))
		}
		if s.MaxLength != nil {
			add("maxLength", strings.Repeat("a", int(*s.MaxLength)+1))
		}
		if s.Pattern != "" {
			re := regexp.MustCompile(s.Pattern)
			for _, c := range []string{"not valid!", " ", "-\n-", ""} {
				if !re.MatchString(c) {
					add("pattern", c)
					break
				}
			}
		}
	}
	if s.Type.Is(openapi3.TypeArray) && s.Items != nil {
		item := g.valid(s.Items.Value)
		if s.MinItems > 0 {
			add("minItems", repeat(item, int(s.MinItems)-1))
		}
		if s.MaxItems != nil {
			add("maxItems", repeat(item, int(*s.MaxItems)+1))
		}
		rest := repeat(item, max(int(s.MinItems), 1)-1)
		for _, v := range g.violations(s.Items.Value, item, at+"/0") {
			out = append(out, violation{constraint: v.constraint, kind: v.kind, body: append([]any{v.body}, rest...)})
		}
	}
	obj, isObj := valid.(map[string]any)
	if !isObj {
		return out
	}
	for _, name := range s.Required {
		without := maps.Clone(obj)
		delete(without, name)
		add("required "+name, without)
	}
	if ap := s.AdditionalProperties; ap.Has != nil && !*ap.Has {
		with := maps.Clone(obj)
		with["notInTheSpec"] = 1
		add("additionalProperties: false", with)
	}
	if ap := s.AdditionalProperties; ap.Schema != nil && ap.Schema.Value != nil {
		for _, v := range g.violations(ap.Schema.Value, g.valid(ap.Schema.Value), at+"/key") {
			with := maps.Clone(obj)
			with["key"] = v.body
			out = append(out, violation{constraint: v.constraint, kind: v.kind, body: with})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name].Value
		if p == nil || p.ReadOnly {
			continue
		}
		pv, ok := obj[name]
		if !ok {
			pv = g.valid(p)
		}
		for _, v := range g.violations(p, pv, at+"/"+name) {
			with := maps.Clone(obj)
			with[name] = v.body
			out = append(out, violation{constraint: v.constraint, kind: v.kind, body: with})
		}
	}
	return out
}

// matchingNone returns a value no alternative of s's oneOf/anyOf accepts.
func (g *generator) matchingNone(s *openapi3.Schema) (any, bool) {
	for _, c := range []any{"not-any-alternative", 987654321.5, true, map[string]any{"notInTheSpec": 1}, []any{1}} {
		if s.VisitJSON(c) != nil {
			return c, true
		}
	}
	g.t.Errorf("no value found that breaks every alternative of a oneOf/anyOf: teach the generator")
	return nil, false
}

func wrongType(typ string) any {
	if typ == openapi3.TypeString {
		return 12345
	}
	return "not-a-" + typ
}

func repeat(v any, n int) []any {
	out := make([]any, 0, n)
	for range n {
		out = append(out, v)
	}
	return out
}

// normalize turns v into what encoding/json decodes it to, as the validator sees it.
func normalize(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(mustJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
