package schemajson

import (
	"encoding/json"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

func sampleResponse() *tfprotov6.GetProviderSchemaResponse {
	return &tfprotov6.GetProviderSchemaResponse{
		Provider: &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{
			Description:     "The **E2B** provider.",
			DescriptionKind: tfprotov6.StringKindMarkdown,
			Attributes: []*tfprotov6.SchemaAttribute{
				{Name: "api_key", Type: tftypes.String, Optional: true, Sensitive: true},
				{Name: "default_metadata", Type: tftypes.Map{ElementType: tftypes.String}, Optional: true},
			},
		}},
		ResourceSchemas: map[string]*tfprotov6.Schema{
			"e2b_sandbox": {Version: 1, Block: &tfprotov6.SchemaBlock{
				Attributes: []*tfprotov6.SchemaAttribute{
					{Name: "id", Type: tftypes.String, Computed: true},
					{Name: "network", NestedType: &tfprotov6.SchemaObject{
						Nesting: tfprotov6.SchemaObjectNestingModeSingle,
						Attributes: []*tfprotov6.SchemaAttribute{
							{Name: "allow_out", Type: tftypes.List{ElementType: tftypes.String}, Optional: true},
						},
					}, Optional: true},
				},
				BlockTypes: []*tfprotov6.SchemaNestedBlock{{
					TypeName: "timeouts",
					Nesting:  tfprotov6.SchemaNestedBlockNestingModeSingle,
					Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
						{Name: "create", Type: tftypes.String, Optional: true},
					}},
				}},
			}},
		},
		ListResourceSchemas: map[string]*tfprotov6.Schema{
			"e2b_sandbox": {Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{
				{Name: "state", Type: tftypes.Set{ElementType: tftypes.String}, Optional: true},
			}}},
		},
		ActionSchemas: map[string]*tfprotov6.ActionSchema{
			"e2b_exec": {Schema: &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{
				Description: "Runs a command.",
				Attributes: []*tfprotov6.SchemaAttribute{
					{Name: "command", Type: tftypes.String, Required: true},
				},
			}}},
		},
		Functions: map[string]*tfprotov6.Function{
			"sandbox_host": {
				Summary: "Host name of a sandbox port.",
				Parameters: []*tfprotov6.FunctionParameter{
					{Name: "sandbox_id", Type: tftypes.String},
					{Name: "port", Type: tftypes.Number, AllowNullValue: true},
				},
				Return: &tfprotov6.FunctionReturn{Type: tftypes.String},
			},
		},
	}
}

func TestConvertKeepsEveryKind(t *testing.T) {
	identities := map[string]*tfprotov6.ResourceIdentitySchema{
		"e2b_sandbox": {Version: 0, IdentityAttributes: []*tfprotov6.ResourceIdentitySchemaAttribute{
			{Name: "sandbox_id", Type: tftypes.String, RequiredForImport: true},
		}},
	}
	got, err := Convert(sampleResponse(), identities)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}

	if got.ConfigSchema.Block.DescriptionKind != tfjson.SchemaDescriptionKindMarkdown {
		t.Errorf("provider description kind = %q, want markdown", got.ConfigSchema.Block.DescriptionKind)
	}
	if !got.ConfigSchema.Block.Attributes["api_key"].Sensitive {
		t.Error("api_key lost its sensitive flag")
	}
	if ty := got.ConfigSchema.Block.Attributes["default_metadata"].AttributeType; !ty.Equals(cty.Map(cty.String)) {
		t.Errorf("default_metadata type = %#v, want map(string)", ty)
	}

	sandbox := got.ResourceSchemas["e2b_sandbox"]
	if sandbox == nil || sandbox.Version != 1 {
		t.Fatalf("e2b_sandbox schema = %#v, want version 1", sandbox)
	}
	network := sandbox.Block.Attributes["network"].AttributeNestedType
	if network == nil || network.NestingMode != tfjson.SchemaNestingModeSingle {
		t.Fatalf("network nested type = %#v, want single nesting", network)
	}
	if ty := network.Attributes["allow_out"].AttributeType; !ty.Equals(cty.List(cty.String)) {
		t.Errorf("allow_out type = %#v, want list(string)", ty)
	}
	if nb := sandbox.Block.NestedBlocks["timeouts"]; nb == nil || nb.NestingMode != tfjson.SchemaNestingModeSingle {
		t.Errorf("timeouts block = %#v, want single nesting", nb)
	}

	if a := got.ActionSchemas["e2b_exec"]; a == nil || !a.Block.Attributes["command"].Required {
		t.Errorf("action e2b_exec = %#v, want a required command", a)
	}
	if l := got.ListResourceSchemas["e2b_sandbox"]; l == nil || !l.Block.Attributes["state"].AttributeType.Equals(cty.Set(cty.String)) {
		t.Errorf("list resource e2b_sandbox = %#v, want state set(string)", l)
	}
	fn := got.Functions["sandbox_host"]
	if fn == nil || len(fn.Parameters) != 2 || !fn.Parameters[1].IsNullable || !fn.ReturnType.Equals(cty.String) {
		t.Errorf("function sandbox_host = %#v", fn)
	}
	id := got.ResourceIdentitySchemas["e2b_sandbox"]
	if id == nil || !id.Attributes["sandbox_id"].RequiredForImport {
		t.Errorf("identity e2b_sandbox = %#v", id)
	}
}

// The written file must read back through terraform-json, which is what
// tfplugindocs uses, with the action schema intact.
func TestMarshalRoundTripsThroughTerraformJSON(t *testing.T) {
	ps, err := Convert(sampleResponse(), nil)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	raw, err := Marshal(&tfjson.ProviderSchemas{FormatVersion: FormatVersion, Schemas: map[string]*tfjson.ProviderSchema{"e2b": ps}})
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if !strings.Contains(string(raw), `"action_schemas"`) {
		t.Fatalf("JSON has no action_schemas:\n%s", raw)
	}
	var back tfjson.ProviderSchemas
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatalf("terraform-json rejects the output: %v", err)
	}
	if back.Schemas["e2b"].ActionSchemas["e2b_exec"].Block.Description != "Runs a command." {
		t.Errorf("action description lost in round trip")
	}
}

func TestConvertRejectsBrokenSchemas(t *testing.T) {
	cases := map[string]*tfprotov6.GetProviderSchemaResponse{
		"attribute without type": {ResourceSchemas: map[string]*tfprotov6.Schema{
			"e2b_x": {Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{{Name: "a"}}}},
		}},
		"function without return": {Functions: map[string]*tfprotov6.Function{"f": {}}},
		"action without schema":   {ActionSchemas: map[string]*tfprotov6.ActionSchema{"e2b_a": {}}},
	}
	for name, resp := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Convert(resp, nil); err == nil {
				t.Fatal("Convert accepted a broken schema")
			}
		})
	}
}
