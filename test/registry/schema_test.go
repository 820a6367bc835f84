package registry

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// schema is one resource type's schema from `providers schema -json`.
type schema struct {
	Version int   `json:"version"`
	Block   block `json:"block"`
}

type block struct {
	Attributes map[string]attribute `json:"attributes"`
	BlockTypes map[string]struct {
		NestingMode string `json:"nesting_mode"`
		Block       block  `json:"block"`
	} `json:"block_types"`
}

type attribute struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		NestingMode string               `json:"nesting_mode"`
		Attributes  map[string]attribute `json:"attributes"`
	} `json:"nested_type"`
}

// parseSchemas returns the resource schemas of the provider at source.
func parseSchemas(t *testing.T, out, source string) map[string]schema {
	t.Helper()
	var doc struct {
		ProviderSchemas map[string]struct {
			ResourceSchemas map[string]schema `json:"resource_schemas"`
		} `json:"provider_schemas"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("providers schema -json: %v", err)
	}
	for addr, p := range doc.ProviderSchemas {
		if addr == source || addr == "registry.terraform.io/"+source || addr == "registry.opentofu.org/"+source {
			return p.ResourceSchemas
		}
	}
	t.Fatalf("providers schema -json has no %s", source)
	return nil
}

// schemaChanges lists the changes old state cannot survive without a new schema version
// (a removed resource type or attribute, an attribute of another type, a removed block);
// added attributes and types are only logged.
func schemaChanges(t *testing.T, before, after map[string]schema) []string {
	var problems []string
	for _, name := range sortedKeys(before) {
		old := before[name]
		cur, ok := after[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("resource type %s removed: state holding one cannot be read", name))
			continue
		case cur.Version > old.Version:
			t.Logf("%s: schema version %d -> %d (its state upgrader runs)", name, old.Version, cur.Version)
			continue
		case cur.Version < old.Version:
			problems = append(problems, fmt.Sprintf("%s: schema version went down, %d -> %d", name, old.Version, cur.Version))
			continue
		}
		for _, c := range blockChanges(name, old.Block, cur.Block, t) {
			problems = append(problems, c+fmt.Sprintf(" with schema version %d unchanged: give %s a new schema version and a state upgrader", cur.Version, name))
		}
	}
	for _, name := range sortedKeys(after) {
		if _, ok := before[name]; !ok {
			t.Logf("new resource type %s", name)
		}
	}
	return problems
}

func blockChanges(path string, old, cur block, t *testing.T) []string {
	var out []string
	out = append(out, attributeChanges(path, old.Attributes, cur.Attributes, t)...)
	for _, b := range sortedKeys(old.BlockTypes) {
		c, ok := cur.BlockTypes[b]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("block %s.%s removed", path, b))
		case c.NestingMode != old.BlockTypes[b].NestingMode:
			out = append(out, fmt.Sprintf("block %s.%s nesting %s -> %s", path, b, old.BlockTypes[b].NestingMode, c.NestingMode))
		default:
			out = append(out, blockChanges(path+"."+b, old.BlockTypes[b].Block, c.Block, t)...)
		}
	}
	return out
}

func attributeChanges(path string, old, cur map[string]attribute, t *testing.T) []string {
	var out []string
	for _, a := range sortedKeys(old) {
		o := old[a]
		c, ok := cur[a]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s.%s removed", path, a))
		case (o.NestedType == nil) != (c.NestedType == nil) || !reflect.DeepEqual(normal(o.Type), normal(c.Type)):
			out = append(out, fmt.Sprintf("%s.%s changed type", path, a))
		case o.NestedType != nil && o.NestedType.NestingMode != c.NestedType.NestingMode:
			out = append(out, fmt.Sprintf("%s.%s nesting %s -> %s", path, a, o.NestedType.NestingMode, c.NestedType.NestingMode))
		case o.NestedType != nil:
			out = append(out, attributeChanges(path+"."+a, o.NestedType.Attributes, c.NestedType.Attributes, t)...)
		}
	}
	for _, a := range sortedKeys(cur) {
		if _, ok := old[a]; !ok {
			t.Logf("%s.%s added (null in older state)", path, a)
		}
	}
	return out
}

// normal decodes JSON so key order and spacing do not count as a change.
func normal(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestSchemaChanges: the comparison TestUpgrade runs on the two releases' schemas, on
// schemas written here (it needs no release).
func TestSchemaChanges(t *testing.T) {
	parse := func(doc string) map[string]schema {
		t.Helper()
		return parseSchemas(t, `{"provider_schemas":{"registry.terraform.io/e2b-terraform/e2b":{"resource_schemas":`+doc+`}}}`, "e2b-terraform/e2b")
	}
	before := parse(`{
	  "e2b_a": {"version": 0, "block": {"attributes": {"id": {"type": "string"}, "gone": {"type": "string"}, "n": {"type": "number"}}}},
	  "e2b_b": {"version": 0, "block": {"attributes": {"net": {"nested_type": {"nesting_mode": "single", "attributes": {"x": {"type": "bool"}}}}}}},
	  "e2b_c": {"version": 0, "block": {"attributes": {"id": {"type": "string"}}}},
	  "e2b_d": {"version": 1, "block": {"attributes": {"id": {"type": "string"}}}},
	  "e2b_e": {"version": 0, "block": {"attributes": {"id": {"type": "string"}}}}
	}`)
	after := parse(`{
	  "e2b_a": {"version": 0, "block": {"attributes": {"id": {"type": "string"}, "n": {"type": "string"}, "new": {"type": "bool"}}}},
	  "e2b_b": {"version": 0, "block": {"attributes": {"net": {"nested_type": {"nesting_mode": "single", "attributes": {"x": {"type": "bool"}, "y": {"type": "string"}}}}}}},
	  "e2b_c": {"version": 1, "block": {"attributes": {"id": {"type": "number"}}}},
	  "e2b_d": {"version": 1, "block": {"attributes": {"id": {"type": "string"}, "extra": {"type": "string"}}}}
	}`)
	got := schemaChanges(t, before, after)
	want := []string{
		"e2b_a.gone removed with schema version 0 unchanged: give e2b_a a new schema version and a state upgrader",
		"e2b_a.n changed type with schema version 0 unchanged: give e2b_a a new schema version and a state upgrader",
		"resource type e2b_e removed: state holding one cannot be read",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("schemaChanges:\n got %q\nwant %q", got, want)
	}
}
