package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
)

// The docs depend on this file holding every kind of schema the provider
// serves, including the ones OpenTofu's CLI output leaves out.
func TestWritesEverySchemaKindOfTheProvider(t *testing.T) {
	out := filepath.Join(t.TempDir(), "schema.json")
	if err := run(out, "e2b"); err != nil {
		t.Fatalf("run: %v", err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got tfjson.ProviderSchemas
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("terraform-json rejects the file: %v", err)
	}
	ps := got.Schemas["e2b"]
	if ps == nil || ps.ConfigSchema == nil {
		t.Fatalf("no provider schema under key e2b: %s", raw[:min(len(raw), 300)])
	}
	if ps.ConfigSchema.Block.Attributes["api_key"] == nil || !ps.ConfigSchema.Block.Attributes["api_key"].Sensitive {
		t.Error("provider schema lacks a sensitive api_key")
	}
	checks := map[string]bool{
		"resource e2b_sandbox":      ps.ResourceSchemas["e2b_sandbox"] != nil,
		"identity e2b_sandbox":      ps.ResourceIdentitySchemas["e2b_sandbox"] != nil,
		"data source e2b_templates": ps.DataSourceSchemas["e2b_templates"] != nil,
		"action e2b_exec":           ps.ActionSchemas["e2b_exec"] != nil,
		"list resource e2b_sandbox": ps.ListResourceSchemas["e2b_sandbox"] != nil,
		"function sandbox_host":     ps.Functions["sandbox_host"] != nil,
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("schema file lacks %s", what)
		}
	}
}
