package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The provider's schema, linted as the schema rules of tfproviderlint that apply to a framework
// provider, and the project's own:
//
//   - described: every attribute, block, function and parameter has a description (XS001), as the
//     registry docs render them;
//   - named: lower snake_case names (the naming rule of Terraform's plugin guidelines);
//   - secret: an attribute whose name says it holds a secret (a key, token, secret, password,
//     environment variables) is sensitive or write-only, so no CLI prints it;
//   - stable: a computed attribute of a resource has a plan modifier (UseStateForUnknown when E2B
//     keeps the value, a Default, or a modifier of the provider's own), so an unrelated update does
//     not plan it as "known after apply";
//   - computed-replace: a computed-only attribute never requires replacement (S020: a value the
//     user cannot set cannot change by the user's hand).
//
// The allow-lists below name the attributes a rule does not fit, each with why. Each message
// says what to change, where.

// secretWords are the name parts that mark a secret.
var secretWords = []string{"key", "token", "tokens", "secret", "password", "credentials"}

// notSecret: names with a secret word that hold no secret.
var notSecret = map[string]string{
	"e2b_sandbox.iam.token_type": "the kind of token E2B mints for the sandbox (JWT-SVID), not a token",
}

// unstable: computed attributes of resources that an in-place update changes, so keeping the
// prior state's value in the plan would be wrong.
var unstable = map[string]string{
	"e2b_template_tag.created_at": "an update points the tag at another build, which E2B stamps anew",
	"e2b_volume.token":            "follows expose_token, the volume's only in-place change",
}

// plannedByModifyPlan: computed attributes of resources whose ModifyPlan sets the planned value
// (the test checks that the resource has one).
var plannedByModifyPlan = map[string]string{
	"e2b_sandbox.state":           "follows paused",
	"e2b_sandbox.started_at":      "kept unless paused changes (a resume restarts the clock)",
	"e2b_sandbox.end_at":          "kept unless paused or timeout changes",
	"e2b_sandbox.metadata_all":    "metadata merged over the provider's default_metadata",
	"e2b_sandbox_file.sha256":     "hashed from the configured content",
	"e2b_sandbox_file.size":       "measured from the configured content",
	"e2b_sandbox_folder.sha256":   "hashed from the source folder",
	"e2b_sandbox_folder.files":    "listed from the source folder",
	"e2b_volume_file.sha256":      "hashed from the configured content",
	"e2b_volume_file.size":        "measured from the configured content",
	"e2b_template.build_id":       "kept unless a build input changes",
	"e2b_template.build_status":   "kept unless a build input changes or a build is still running",
	"e2b_template.context_sha256": "hashed from the files the COPY steps send",
	"e2b_template.names":          "kept unless the name or tags change",
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestProviderSchemaLint(t *testing.T) {
	ctx := context.Background()
	server, err := ProtocolServer(New("dev")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("the framework rejects the schema: %s: %s", d.Summary, d.Detail)
	}
	var l schemaLint
	l.schema("the provider configuration", "provider", resp.Provider)
	for _, kind := range []struct {
		what    string
		schemas map[string]*tfprotov6.Schema
	}{
		{"resource", resp.ResourceSchemas},
		{"data source", resp.DataSourceSchemas},
		{"ephemeral resource", resp.EphemeralResourceSchemas},
		{"list resource", resp.ListResourceSchemas},
	} {
		for _, name := range slices.Sorted(maps.Keys(kind.schemas)) {
			l.schema(kind.what+" "+name, name, kind.schemas[name])
		}
	}
	for _, name := range slices.Sorted(maps.Keys(resp.ActionSchemas)) {
		l.schema("action "+name, name, resp.ActionSchemas[name].Schema)
	}
	for _, name := range slices.Sorted(maps.Keys(resp.Functions)) {
		l.function(name, resp.Functions[name])
	}
	p := New("dev")()
	for _, f := range p.Resources(ctx) {
		r := f()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "e2b"}, &meta)
		var sch resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sch)
		_, l.modifyPlan = r.(resource.ResourceWithModifyPlan)
		l.planModifiers(meta.TypeName, sch.Schema.Attributes, sch.Schema.Blocks)
	}
	l.unused(t)
	sort.Strings(l.findings)
	for _, f := range l.findings {
		t.Error(f)
	}
	t.Logf("linted %d attributes and blocks", l.checked)
}

type schemaLint struct {
	findings []string
	checked  int
	used     map[string]bool // allow-list entries that matched
	// modifyPlan: the resource being walked has a ModifyPlan.
	modifyPlan bool
}

func (l *schemaLint) add(format string, args ...any) {
	l.findings = append(l.findings, fmt.Sprintf(format, args...))
}

func (l *schemaLint) allowed(list map[string]string, addr string) bool {
	if _, ok := list[addr]; !ok {
		return false
	}
	if l.used == nil {
		l.used = map[string]bool{}
	}
	l.used[addr] = true
	return true
}

// unused: an allow-list entry that matches nothing is stale (the attribute was renamed or fixed).
func (l *schemaLint) unused(t *testing.T) {
	for _, list := range []map[string]string{notSecret, unstable, plannedByModifyPlan} {
		for addr := range list {
			if !l.used[addr] {
				l.add("%s: allow-listed in schema_lint_test.go but no attribute by that address breaks the rule any more: remove the entry", addr)
			}
		}
	}
}

func (l *schemaLint) schema(where, prefix string, s *tfprotov6.Schema) {
	if s == nil || s.Block == nil {
		l.add("%s: no schema", where)
		return
	}
	if s.Block.Description == "" && prefix != "provider" {
		l.add("%s: no description: set MarkdownDescription on its schema.Schema", where)
	}
	l.block(where, prefix, s.Block)
}

func (l *schemaLint) block(where, prefix string, b *tfprotov6.SchemaBlock) {
	for _, a := range b.Attributes {
		l.attribute(where, prefix+"."+a.Name, a)
	}
	for _, nb := range b.BlockTypes {
		addr := prefix + "." + nb.TypeName
		l.checked++
		l.name(where, addr, nb.TypeName)
		if nb.Block == nil || nb.Block.Description == "" {
			// The timeouts block of terraform-plugin-framework-timeouts describes only its attributes.
			if nb.TypeName != "timeouts" {
				l.add("%s: block %s has no description: set MarkdownDescription on the block in its schema", where, addr)
			}
		}
		if nb.Block != nil {
			l.block(where, addr, nb.Block)
		}
	}
}

func (l *schemaLint) attribute(where, addr string, a *tfprotov6.SchemaAttribute) {
	l.checked++
	l.name(where, addr, a.Name)
	if a.Description == "" {
		l.add("%s: attribute %s has no description: set MarkdownDescription on it in its schema", where, addr)
	}
	if secretName(a.Name) && mayHoldSecret(a.Type) && !a.Sensitive && !a.WriteOnly && !l.allowed(notSecret, addr) {
		l.add("%s: attribute %s is named like a secret but is neither sensitive nor write-only: set Sensitive: true "+
			"(or WriteOnly: true), or, if it holds no secret, add %q to notSecret in schema_lint_test.go with the reason",
			where, addr, addr)
	}
	if a.NestedType != nil {
		for _, na := range a.NestedType.Attributes {
			l.attribute(where, addr+"."+na.Name, na)
		}
	}
}

func (l *schemaLint) name(where, addr, name string) {
	if !snakeCase.MatchString(name) {
		l.add("%s: %s is not a lower snake_case name: rename it (letters, digits, single underscores)", where, addr)
	}
}

func (l *schemaLint) function(name string, f *tfprotov6.Function) {
	if f.Summary == "" || f.Description == "" {
		l.add("function %s: no summary or description: set Summary and MarkdownDescription in its Definition", name)
	}
	params := slices.Clone(f.Parameters)
	if f.VariadicParameter != nil {
		params = append(params, f.VariadicParameter)
	}
	for _, p := range params {
		l.checked++
		if p.Description == "" {
			l.add("function %s: parameter %s has no description: set MarkdownDescription on it in the Definition", name, p.Name)
		}
		if !snakeCase.MatchString(p.Name) {
			l.add("function %s: parameter %s is not a lower snake_case name: rename it", name, p.Name)
		}
	}
}

// mayHoldSecret: a switch or a number holds no secret (expose_token, store_access_tokens).
func mayHoldSecret(t tftypes.Type) bool {
	return !t.Is(tftypes.Bool) && !t.Is(tftypes.Number)
}

// secretName: a name part is a secret word (api_key, signature_secret, password_wo), or the name
// holds environment variables, which carry credentials as often as not.
// IDs and version counters hold none (secret_id, aws_access_key_id, password_wo_version).
func secretName(name string) bool {
	parts := strings.Split(name, "_")
	if last := parts[len(parts)-1]; last == "id" || last == "version" {
		return false
	}
	for _, p := range parts {
		if slices.Contains(secretWords, p) {
			return true
		}
	}
	return name == "env_vars" || name == "env" || name == "env_wo" || strings.HasPrefix(name, "envs")
}

// planModifiers walks a resource's framework schema: the plan modifiers and defaults do not cross
// the protocol, so the stable and computed-replace rules read the attribute values themselves.
func (l *schemaLint) planModifiers(typeName string, attrs map[string]rschema.Attribute, blocks map[string]rschema.Block) {
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		l.resourceAttribute(typeName, typeName+"."+name, attrs[name])
	}
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		nested, nestedBlocks := nestedOf(blocks[name])
		l.planModifiers(typeName, prefixed(name, nested), prefixedBlocks(name, nestedBlocks))
	}
}

func (l *schemaLint) resourceAttribute(typeName, addr string, a rschema.Attribute) {
	computedOnly := a.IsComputed() && !a.IsOptional() && !a.IsRequired()
	mods := fieldLen(a, "PlanModifiers")
	hasDefault := fieldNonNil(a, "Default")
	planned := l.allowed(plannedByModifyPlan, addr)
	if planned && !l.modifyPlan {
		l.add("resource %s: %s is in plannedByModifyPlan in schema_lint_test.go, but the resource has no ModifyPlan: "+
			"give the attribute a plan modifier and remove the entry", typeName, addr)
	}
	if a.IsComputed() && mods == 0 && !hasDefault && !planned && !l.allowed(unstable, addr) {
		l.add("resource %s: computed attribute %s has no plan modifier, so every update plans it as (known after apply): "+
			"add PlanModifiers with the type's UseStateForUnknown() when E2B keeps the value, or, if it changes between "+
			"reads, add %q to unstable in schema_lint_test.go with the reason (to plannedByModifyPlan when the resource's "+
			"ModifyPlan sets it)", typeName, addr, addr)
	}
	if computedOnly && replaces(a) {
		l.add("resource %s: computed-only attribute %s requires replacement; the user cannot change it: remove RequiresReplace", typeName, addr)
	}
	if a.IsComputed() && mods == 0 && !hasDefault {
		return // its nested attributes follow the whole value
	}
	if nested, ok := nestedAttributes(a); ok {
		for _, name := range slices.Sorted(maps.Keys(nested)) {
			l.resourceAttribute(typeName, addr+"."+name, nested[name])
		}
	}
}

// replaces: one of the attribute's plan modifiers is a RequiresReplace of the framework's.
func replaces(a rschema.Attribute) bool {
	v := reflect.ValueOf(a).FieldByName("PlanModifiers")
	if !v.IsValid() {
		return false
	}
	for i := range v.Len() {
		if strings.Contains(fmt.Sprintf("%T", v.Index(i).Interface()), "requiresReplace") {
			return true
		}
	}
	return false
}

func fieldLen(a any, field string) int {
	v := reflect.ValueOf(a).FieldByName(field)
	if !v.IsValid() {
		return 0
	}
	return v.Len()
}

func fieldNonNil(a any, field string) bool {
	v := reflect.ValueOf(a).FieldByName(field)
	return v.IsValid() && !v.IsNil()
}

// nestedAttributes: the attributes inside a nested attribute (single, list, set or map).
func nestedAttributes(a rschema.Attribute) (map[string]rschema.Attribute, bool) {
	switch n := a.(type) {
	case rschema.SingleNestedAttribute:
		return n.Attributes, true
	case rschema.ListNestedAttribute:
		return n.NestedObject.Attributes, true
	case rschema.SetNestedAttribute:
		return n.NestedObject.Attributes, true
	case rschema.MapNestedAttribute:
		return n.NestedObject.Attributes, true
	}
	return nil, false
}

func nestedOf(b rschema.Block) (map[string]rschema.Attribute, map[string]rschema.Block) {
	switch n := b.(type) {
	case rschema.SingleNestedBlock:
		return n.Attributes, n.Blocks
	case rschema.ListNestedBlock:
		return n.NestedObject.Attributes, n.NestedObject.Blocks
	case rschema.SetNestedBlock:
		return n.NestedObject.Attributes, n.NestedObject.Blocks
	}
	// A block of another package (the timeouts block) has no computed attributes.
	return nil, nil
}

func prefixed(prefix string, m map[string]rschema.Attribute) map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(m))
	for k, v := range m {
		out[prefix+"."+k] = v
	}
	return out
}

func prefixedBlocks(prefix string, m map[string]rschema.Block) map[string]rschema.Block {
	out := make(map[string]rschema.Block, len(m))
	for k, v := range m {
		out[prefix+"."+k] = v
	}
	return out
}

// Each rule fires on a schema that breaks it, with a message naming the attribute.
func TestProviderSchemaLintRules(t *testing.T) {
	var l schemaLint
	l.schema("resource e2b_x", "e2b_x", &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{
		Description: "x",
		Attributes: []*tfprotov6.SchemaAttribute{
			{Name: "plain", Type: tftypes.String},
			{Name: "api_token", Type: tftypes.String, Description: "d"},
			{Name: "env_vars", Type: tftypes.Map{ElementType: tftypes.String}, Description: "d", WriteOnly: true},
			{Name: "BadName", Type: tftypes.String, Description: "d"},
		},
	}})
	l.modifyPlan = false
	l.planModifiers("e2b_x", map[string]rschema.Attribute{
		"drifting": rschema.StringAttribute{Computed: true, MarkdownDescription: "d"},
		"kept": rschema.StringAttribute{Computed: true, MarkdownDescription: "d",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"replacing": rschema.StringAttribute{Computed: true, MarkdownDescription: "d",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
	}, nil)
	want := []string{
		"attribute e2b_x.plain has no description",
		"attribute e2b_x.api_token is named like a secret",
		"e2b_x.BadName is not a lower snake_case name",
		"computed attribute e2b_x.drifting has no plan modifier",
		"computed-only attribute e2b_x.replacing requires replacement",
	}
	if len(l.findings) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(l.findings), len(want), strings.Join(l.findings, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(l.findings, func(f string) bool { return strings.Contains(f, w) }) {
			t.Errorf("no finding %q among:\n%s", w, strings.Join(l.findings, "\n"))
		}
	}
}
