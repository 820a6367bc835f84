package provider

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
)

type templateResourceModel struct {
	ID                types.String   `tfsdk:"id"`
	TemplateID        types.String   `tfsdk:"template_id"`
	Name              types.String   `tfsdk:"name"`
	CPUCount          types.Int32    `tfsdk:"cpu_count"`
	MemoryMB          types.Int32    `tfsdk:"memory_mb"`
	MinFreeDiskMB     types.Int32    `tfsdk:"min_free_disk_mb"`
	FromImage         types.String   `tfsdk:"from_image"`
	FromTemplate      types.String   `tfsdk:"from_template"`
	FromImageRegistry *registryModel `tfsdk:"from_image_registry"`
	Dockerfile        types.String   `tfsdk:"dockerfile"`
	Context           types.String   `tfsdk:"context"`
	Ignore            []types.String `tfsdk:"ignore"`
	NormalizeModes    types.Bool     `tfsdk:"normalize_file_modes"`
	Steps             []stepModel    `tfsdk:"steps"`
	StartCmd          types.String   `tfsdk:"start_cmd"`
	ReadyCmd          types.String   `tfsdk:"ready_cmd"`
	Ready             *readyModel    `tfsdk:"ready"`
	Public            types.Bool     `tfsdk:"public"`
	SkipCache         types.Bool     `tfsdk:"skip_cache"`
	BuildID           types.String   `tfsdk:"build_id"`
	BuildStatus       types.String   `tfsdk:"build_status"`
	Names             types.List     `tfsdk:"names"`
	ContextSHA256     types.String   `tfsdk:"context_sha256"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

type registryModel struct {
	Image                   types.String `tfsdk:"image"`
	Username                types.String `tfsdk:"username"`
	PasswordWO              types.String `tfsdk:"password_wo"`
	AWSAccessKeyID          types.String `tfsdk:"aws_access_key_id"`
	AWSSecretAccessKeyWO    types.String `tfsdk:"aws_secret_access_key_wo"`
	AWSRegion               types.String `tfsdk:"aws_region"`
	GCPServiceAccountJSONWO types.String `tfsdk:"gcp_service_account_json_wo"`
	CredentialsWOVersion    types.Int64  `tfsdk:"credentials_wo_version"`
}

type stepModel struct {
	Run     *runModel    `tfsdk:"run"`
	Copy    *copyModel   `tfsdk:"copy"`
	Env     types.Map    `tfsdk:"env"`
	Workdir types.String `tfsdk:"workdir"`
	User    types.String `tfsdk:"user"`
}

type runModel struct {
	Command types.String `tfsdk:"command"`
	User    types.String `tfsdk:"user"`
}

type copyModel struct {
	Src             types.String `tfsdk:"src"`
	Dest            types.String `tfsdk:"dest"`
	User            types.String `tfsdk:"user"`
	Mode            types.String `tfsdk:"mode"`
	ResolveSymlinks types.Bool   `tfsdk:"resolve_symlinks"`
}

type readyModel struct {
	Port       types.Int32            `tfsdk:"port"`
	URL        types.String           `tfsdk:"url"`
	StatusCode types.Int32            `tfsdk:"status_code"`
	Process    types.String           `tfsdk:"process"`
	File       types.String           `tfsdk:"file"`
	After      customtypes.GoDuration `tfsdk:"after"`
}

// templateSpec is what a build needs, derived from the configuration.
type templateSpec struct {
	build      e2b.TemplateBuildSpec
	warnings   []string // Dockerfile instructions without effect
	digest     string   // context_sha256; "" without COPY steps
	copyInputs string   // what digest depends on besides the files (e2b.CopyInputs)
}

// spec turns the configuration into a build spec and hashes the COPY steps'
// files. Problems are attribute errors. Unknown values must be checked by
// the caller first (buildInputsKnown).
func (m *templateResourceModel) spec(ctx context.Context) (*templateSpec, diag.Diagnostics) {
	out, diags := m.specWithoutFiles(ctx)
	if diags.HasError() || out.copyInputs == "" {
		return out, diags
	}
	if m.Context.IsNull() {
		diags.AddAttributeError(path.Root("context"), "Missing context directory",
			"A step copies files, so `context` must name the local directory they come from.")
		return nil, diags
	}
	hashes, err := e2b.CopyFilesHashes(out.build.Context, out.build.Steps)
	if err != nil {
		diags.AddAttributeError(path.Root("context"), "Cannot read the files a COPY step sends", err.Error())
		return nil, diags
	}
	out.digest = e2b.ContextDigest(hashes)
	return out, diags
}

// specWithoutFiles is spec without reading the context: copyInputs is set
// when a step copies files, digest is not.
func (m *templateResourceModel) specWithoutFiles(ctx context.Context) (*templateSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := &templateSpec{build: e2b.TemplateBuildSpec{
		Name:          m.Name.ValueString(),
		CPUCount:      m.CPUCount.ValueInt32(),
		MemoryMB:      m.MemoryMB.ValueInt32(),
		MinFreeDiskMB: m.MinFreeDiskMB.ValueInt32Pointer(),
		FromImage:     m.FromImage.ValueString(),
		FromTemplate:  m.FromTemplate.ValueString(),
		StartCmd:      m.StartCmd.ValueString(),
		ReadyCmd:      m.ReadyCmd.ValueString(),
		Force:         m.SkipCache.ValueBool(),
		Context:       buildcontext.Context{Dir: m.Context.ValueString(), NormalizeModes: m.NormalizeModes.ValueBool()},
	}}
	for _, ig := range m.Ignore {
		out.build.Context.Ignore = append(out.build.Context.Ignore, ig.ValueString())
	}
	if r := m.FromImageRegistry; r != nil {
		out.build.FromImage = r.Image.ValueString()
		out.build.FromImageRegistry = r.auth()
	}
	if !m.Dockerfile.IsNull() {
		df, err := e2b.ParseDockerfile(m.Dockerfile.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("dockerfile"), "Dockerfile cannot be built by E2B", err.Error())
			return nil, diags
		}
		out.build.FromImage = df.FromImage
		out.build.Steps = append(out.build.Steps, df.Steps...)
		if out.build.StartCmd == "" {
			out.build.StartCmd = df.StartCmd
			if out.build.ReadyCmd == "" && m.Ready == nil {
				out.build.ReadyCmd = df.ReadyCmd
			}
		}
		out.warnings = df.Warnings
	}
	for i, s := range m.Steps {
		step, d := s.buildStep(ctx, path.Root("steps").AtListIndex(i))
		diags.Append(d...)
		out.build.Steps = append(out.build.Steps, step)
	}
	if m.Ready != nil {
		cmd, d := m.Ready.command()
		diags.Append(d...)
		out.build.ReadyCmd = cmd
	}
	if diags.HasError() {
		return nil, diags
	}
	for _, s := range out.build.Steps {
		if s.Type == e2b.StepCopy {
			out.copyInputs = e2b.CopyInputs(out.build.Context, out.build.Steps)
			break
		}
	}
	return out, diags
}

func (r *registryModel) auth() *e2b.RegistryAuth {
	switch {
	case !r.GCPServiceAccountJSONWO.IsNull():
		return &e2b.RegistryAuth{Type: "gcp", ServiceAccountJSON: r.GCPServiceAccountJSONWO.ValueString()}
	case !r.AWSAccessKeyID.IsNull() || !r.AWSSecretAccessKeyWO.IsNull():
		return &e2b.RegistryAuth{Type: "aws", AWSAccessKeyID: r.AWSAccessKeyID.ValueString(),
			AWSSecretAccessKey: r.AWSSecretAccessKeyWO.ValueString(), AWSRegion: r.AWSRegion.ValueString()}
	case !r.Username.IsNull() || !r.PasswordWO.IsNull():
		return &e2b.RegistryAuth{Type: "registry", Username: r.Username.ValueString(), Password: r.PasswordWO.ValueString()}
	}
	return nil
}

// check says which credentials are incomplete or mixed; "" when fine.
func (r *registryModel) check() string {
	kinds := 0
	plain := !r.Username.IsNull() || !r.PasswordWO.IsNull()
	aws := !r.AWSAccessKeyID.IsNull() || !r.AWSSecretAccessKeyWO.IsNull() || !r.AWSRegion.IsNull()
	gcp := !r.GCPServiceAccountJSONWO.IsNull()
	for _, k := range []bool{plain, aws, gcp} {
		if k {
			kinds++
		}
	}
	switch {
	case kinds == 0:
		return "give credentials: `username` and `password_wo`, the three `aws_*` attributes, or `gcp_service_account_json_wo` (for a public image use `from_image`)"
	case kinds > 1:
		return "give one kind of credentials only: `username`/`password_wo`, `aws_*`, or `gcp_service_account_json_wo`"
	case plain && (r.Username.IsNull() || r.PasswordWO.IsNull()):
		return "a plain registry needs both `username` and `password_wo`"
	case aws && (r.AWSAccessKeyID.IsNull() || r.AWSSecretAccessKeyWO.IsNull() || r.AWSRegion.IsNull()):
		return "Amazon ECR needs `aws_access_key_id`, `aws_secret_access_key_wo` and `aws_region`"
	}
	return ""
}

func (s stepModel) buildStep(ctx context.Context, p path.Path) (e2b.BuildStep, diag.Diagnostics) {
	var diags diag.Diagnostics
	switch {
	case s.Run != nil:
		return e2b.RunStep(s.Run.Command.ValueString(), s.Run.User.ValueString()), diags
	case s.Copy != nil:
		var mode uint64
		if m := s.Copy.Mode.ValueString(); m != "" {
			mode, _ = strconv.ParseUint(m, 8, 32) // the schema checked the form
		}
		step := e2b.CopyStep(s.Copy.Src.ValueString(), s.Copy.Dest.ValueString(), s.Copy.User.ValueString(), uint32(mode))
		step.ResolveSymlinks = s.Copy.ResolveSymlinks.ValueBool()
		return step, diags
	case !s.Env.IsNull():
		env := map[string]string{}
		diags.Append(s.Env.ElementsAs(ctx, &env, false)...)
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys) // a map has no order; a stable one keeps E2B's cache
		pairs := make([][2]string, len(keys))
		for i, k := range keys {
			pairs[i] = [2]string{k, env[k]}
		}
		return e2b.EnvStep(pairs...), diags
	case !s.Workdir.IsNull():
		return e2b.WorkdirStep(s.Workdir.ValueString()), diags
	case !s.User.IsNull():
		return e2b.UserStep(s.User.ValueString()), diags
	}
	diags.AddAttributeError(p, "Empty step", "Set one of `run`, `copy`, `env`, `workdir` and `user`.")
	return e2b.BuildStep{}, diags
}

func (r *readyModel) command() (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	switch {
	case !r.Port.IsNull():
		return e2b.ReadyForPort(int(r.Port.ValueInt32())), diags
	case !r.URL.IsNull():
		return e2b.ReadyForURL(r.URL.ValueString(), int(r.StatusCode.ValueInt32())), diags
	case !r.Process.IsNull():
		return e2b.ReadyForProcess(r.Process.ValueString()), diags
	case !r.File.IsNull():
		return e2b.ReadyForFile(r.File.ValueString()), diags
	case !r.After.IsNull():
		d, dd := r.After.ValueGoDuration()
		diags.Append(dd...)
		if d < time.Second || d%time.Second != 0 {
			diags.AddAttributeError(path.Root("ready").AtName("after"), "Invalid ready delay",
				fmt.Sprintf("`after` is %s; give whole seconds, at least 1s (for example \"20s\").", d))
		}
		return e2b.ReadyAfterSeconds(int(d / time.Second)), diags
	}
	return "", diags
}

// buildInputsKnown reports whether every value a build depends on is known,
// so the plan can hash the context and decide whether a build is needed.
func (m *templateResourceModel) buildInputsKnown() bool {
	vals := []interface{ IsUnknown() bool }{m.Name, m.CPUCount, m.MemoryMB, m.MinFreeDiskMB, m.FromImage, m.FromTemplate,
		m.Dockerfile, m.Context, m.NormalizeModes, m.StartCmd, m.ReadyCmd, m.SkipCache}
	for _, ig := range m.Ignore {
		vals = append(vals, ig)
	}
	if r := m.FromImageRegistry; r != nil {
		vals = append(vals, r.Image, r.Username, r.AWSAccessKeyID, r.AWSRegion, r.CredentialsWOVersion)
	}
	if r := m.Ready; r != nil {
		vals = append(vals, r.Port, r.URL, r.StatusCode, r.Process, r.File, r.After)
	}
	for _, s := range m.Steps {
		vals = append(vals, s.Env, s.Workdir, s.User)
		if s.Run != nil {
			vals = append(vals, s.Run.Command, s.Run.User)
		}
		if s.Copy != nil {
			vals = append(vals, s.Copy.Src, s.Copy.Dest, s.Copy.User, s.Copy.Mode, s.Copy.ResolveSymlinks)
		}
	}
	for _, v := range vals {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// buildInputsDiffer compares what a build depends on: everything but the
// context's path and ignore patterns (their effect is in context_sha256),
// `public` and `skip_cache`.
func buildInputsDiffer(a, b *templateResourceModel) bool {
	if intChanged(a.CPUCount, b.CPUCount) || intChanged(a.MemoryMB, b.MemoryMB) || !a.MinFreeDiskMB.Equal(b.MinFreeDiskMB) {
		return true
	}
	for _, p := range [][2]types.String{{a.FromImage, b.FromImage}, {a.FromTemplate, b.FromTemplate},
		{a.Dockerfile, b.Dockerfile}, {a.StartCmd, b.StartCmd}, {a.ReadyCmd, b.ReadyCmd}, {a.ContextSHA256, b.ContextSHA256}} {
		if !p[0].Equal(p[1]) {
			return true
		}
	}
	return !registryEqual(a.FromImageRegistry, b.FromImageRegistry) || !readyEqual(a.Ready, b.Ready) || !stepsEqual(a.Steps, b.Steps)
}

// intChanged reports a planned value that is set and differs from state.
func intChanged(plan, state types.Int32) bool {
	return !plan.IsUnknown() && !plan.IsNull() && !plan.Equal(state)
}

func registryEqual(a, b *registryModel) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Image.Equal(b.Image) && a.Username.Equal(b.Username) && a.AWSAccessKeyID.Equal(b.AWSAccessKeyID) &&
		a.AWSRegion.Equal(b.AWSRegion) && a.CredentialsWOVersion.Equal(b.CredentialsWOVersion)
}

func readyEqual(a, b *readyModel) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Port.Equal(b.Port) && a.URL.Equal(b.URL) && a.StatusCode.Equal(b.StatusCode) &&
		a.Process.Equal(b.Process) && a.File.Equal(b.File) && a.After.Equal(b.After)
}

func stepsEqual(a, b []stepModel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.Env.Equal(y.Env) || !x.Workdir.Equal(y.Workdir) || !x.User.Equal(y.User) ||
			(x.Run == nil) != (y.Run == nil) || (x.Copy == nil) != (y.Copy == nil) {
			return false
		}
		if x.Run != nil && (!x.Run.Command.Equal(y.Run.Command) || !x.Run.User.Equal(y.Run.User)) {
			return false
		}
		if x.Copy != nil && (!x.Copy.Src.Equal(y.Copy.Src) || !x.Copy.Dest.Equal(y.Copy.Dest) || !x.Copy.User.Equal(y.Copy.User) ||
			!x.Copy.Mode.Equal(y.Copy.Mode) || !x.Copy.ResolveSymlinks.Equal(y.Copy.ResolveSymlinks)) {
			return false
		}
	}
	return true
}

// aliasOf is a template name without its namespace and tag.
func aliasOf(name string) string {
	name, _, _ = strings.Cut(name, ":")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}
