package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int32validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int32planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

// The template's own checks, each E2B's rule from internal/e2b.
func templateNameValidator() validator.String {
	return validators.StringRule{Desc: "must be a template name as E2B takes it", Summary: "Invalid template name", Check: validators.FromError(e2b.ValidateTemplateName)}
}

func imageRefValidator() validator.String {
	return validators.StringRule{Desc: "must be an image reference", Summary: "Invalid image reference", Check: validators.FromError(e2b.ValidateImageRef)}
}

func workdirValidator() validator.String {
	return validators.StringRule{Desc: "must be an absolute path", Summary: "Invalid workdir", Check: validators.FromError(e2b.ValidateWorkdir)}
}

// int32Rule is stringRule for numbers: check returns "" when n is fine.
type int32Rule struct {
	desc, summary string
	check         func(n int32) error
}

func (v int32Rule) Description(_ context.Context) string         { return v.desc }
func (v int32Rule) MarkdownDescription(_ context.Context) string { return v.desc }

func (v int32Rule) ValidateInt32(_ context.Context, req validator.Int32Request, resp *validator.Int32Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueInt32()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, fmt.Sprintf("Attribute %s %s, got: %d", req.Path, err, req.ConfigValue.ValueInt32()))
	}
}

var octalModePattern = regexp.MustCompile(`^0?[0-7]{3,4}$`)

// The kinds of a step; exactly one is set per element of steps.
var stepKinds = []string{"run", "copy", "env", "workdir", "user"}

func stepKindPaths() []path.Expression {
	out := make([]path.Expression, 0, len(stepKinds))
	for _, k := range stepKinds {
		out = append(out, path.MatchRelative().AtParent().AtName(k))
	}
	return out
}

// The bases; exactly one is set.
var templateBases = []string{"from_image", "from_template", "from_image_registry", "dockerfile"}

func (r *templateResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An E2B template built from a base (an image, another template, an image in a private " +
			"registry, or a Dockerfile) and typed steps, with files from a local `context` directory. " +
			"The plan knows whether a build is needed: `context_sha256` is read when Terraform plans, from exactly the " +
			"files the COPY steps send, so editing one of them plans a new build and editing any other file plans " +
			"nothing; an apply that finds them changed since the plan stops before building. A change to a build input is a new build of the same template, in place (same `template_id`, " +
			"new `build_id`); sandboxes keep working meanwhile. A failed build is an error naming the failing step " +
			"with the last lines of its log; the whole log streams to the provider log (`TF_LOG=INFO`). " +
			"Creating fails when a template of the team already has the name (import it instead): E2B would build into it. " +
			"At most one resource owns a template: when two resources (or runs) create the same name at once, E2B builds the " +
			"second into the template the first made, and the second fails naming it, never in state. A create whose answer is " +
			"lost (a gateway's 504, an interrupt) is looked up by its name: nothing found means nothing was made and the create is " +
			"sent again; a template found is never taken over, because E2B's API keeps nothing that tells this apply's request from " +
			"another made at the same moment, and the apply fails naming it and how to import it. " +
			"A build the provider stops following (`timeouts`, Ctrl-C) goes on at E2B and is no error: state records the template with " +
			"`build_status = \"building\"`, and the next plan settles it: nothing to do once the build is ready, a new build in place " +
			"if it failed, and otherwise an update that carries the same build on and waits for it. The template is never replaced for it. " +
			"Destroying deletes the template with all its builds.",
		Attributes: map[string]schema.Attribute{
			"id":          computedStr("Same as `template_id`.", stable),
			"template_id": computedStr("Template ID.", stable),
			"name": schema.StringAttribute{
				MarkdownDescription: "Template name: lower-case letters, digits, `_` and `-` (no `.`: E2B refuses it), at most 128 characters, optionally as `namespace/name`. " +
					"Sandboxes start from it as `name`, `name:<tag>` or `name:<build_id>`. Changing it replaces the template.",
				Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(templateNameChanged,
					"Changing the name replaces the template.", "Changing the name replaces the template.")},
				Validators: []validator.String{templateNameValidator()},
			},
			"cpu_count": schema.Int32Attribute{
				MarkdownDescription: "vCPUs of sandboxes from this template: 1 or an even number up to 32 (E2B's rule; the team's tier may allow fewer). " +
					"E2B's default when unset. A change is a new build.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Int32{int32planmodifier.UseStateForUnknown()},
				Validators:    []validator.Int32{int32Rule{desc: "E2B's vCPU rule", summary: "Invalid cpu_count", check: e2b.ValidateTemplateCPU}},
			},
			"memory_mb": schema.Int32Attribute{
				MarkdownDescription: "Memory in MiB of sandboxes from this template: an even number, at least 128 (E2B's rule; the team's tier sets the most). " +
					"E2B's default when unset. A change is a new build.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: []planmodifier.Int32{int32planmodifier.UseStateForUnknown()},
				Validators:    []validator.Int32{int32Rule{desc: "E2B's memory rule", summary: "Invalid memory_mb", check: e2b.ValidateTemplateMemory}},
			},
			"min_free_disk_mb": schema.Int32Attribute{
				MarkdownDescription: "Free space, in MiB, the build leaves on the template's filesystem after its steps: E2B " +
					"grows the filesystem to it, best effort, and never shrinks it. `0` asks for no growth; unset is the " +
					"team's default. E2B refuses more than the team's allowance (its answer names the most). E2B does not " +
					"report it back, so it is not read on refresh or import. A change is a new build.",
				Optional:   true,
				Validators: []validator.Int32{int32validator.Between(0, e2b.MaxMinFreeDiskMB)},
			},
			"from_image": schema.StringAttribute{
				MarkdownDescription: "Base image from a public registry, such as `python:3.12` (an image reference, checked at plan). One of `from_image`, `from_template`, `from_image_registry` and `dockerfile`: a new template and every new build need exactly one; an imported template may have none while nothing that takes a build changes.",
				Optional:            true,
				Validators: []validator.String{
					imageRefValidator(),
				},
			},
			"from_template": schema.StringAttribute{
				MarkdownDescription: "Base template (ID or name, such as `base`).",
				Optional:            true,
				Validators:          validators.TemplateRef(),
			},
			"from_image_registry": registrySchema(),
			"dockerfile": schema.StringAttribute{
				MarkdownDescription: "A single-stage Dockerfile's text (for example `file(\"Dockerfile\")`), turned into steps at plan time: " +
					"USER root and WORKDIR / first, USER user and WORKDIR /home/user last unless the file sets them, ARG and ENV as " +
					"environment variables, COPY and ADD from `context`, CMD or ENTRYPOINT as `start_cmd`. What E2B cannot build " +
					"(several stages, COPY --from, RUN --mount, ADD from a URL or of an archive, heredocs, HEALTHCHECK, SHELL, ONBUILD) " +
					"is refused at plan time with the line at fault.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"context": schema.StringAttribute{
				MarkdownDescription: "Local directory that COPY steps take files from (relative paths are relative to where Terraform runs). " +
					"Needed when a step copies files. A `.dockerignore` in it is honoured. Terraform's and OpenTofu's working files in it " +
					"are never sent, whatever the steps say: `.terraform` folders, state files (`*.tfstate`, their backups and lock files, " +
					"`terraform.tfstate.d`), `.terraform.lock.hcl`, crash logs (`crash.log`, `crash.*.log`) and saved plans (recognised by " +
					"their content, whatever their name). Nothing outside the directory is ever read: a COPY that would follow a symbolic " +
					"link out of it fails at plan time naming the link; links themselves are sent as links.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"ignore": schema.ListAttribute{
				MarkdownDescription: "More patterns of files in `context` that COPY never sends, in `.dockerignore` syntax.",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"normalize_file_modes": schema.BoolAttribute{
				MarkdownDescription: "Send the files of `context` with the modes git gives them: `0755` when the owner may execute a file, " +
					"else `0644`; folders `0755`. Both the upload and `context_sha256` then ignore the rest of each mode, so a checkout " +
					"made under another umask (`0664` files in CI, `0644` on a laptop) plans no new build. Default `false`: every file " +
					"keeps its own mode, as with E2B's SDK. On a checkout made with umask `022` both settings send and hash the same. " +
					"A step's `mode` still sets the modes in the template.",
				Optional: true,
			},
			"steps": stepsSchema(),
			"start_cmd": schema.StringAttribute{
				MarkdownDescription: "Command started at the end of the build and in every sandbox from the template; " +
					"a sandbox is ready once the ready check passes. Overrides a Dockerfile's CMD or ENTRYPOINT.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"ready_cmd": schema.StringAttribute{
				MarkdownDescription: "Shell command that succeeds once a sandbox is ready. Conflicts with `ready`.",
				Optional:            true,
				Validators: []validator.String{
					stringvalidator.LengthAtLeast(1),
					stringvalidator.ConflictsWith(path.MatchRoot("ready")),
				},
			},
			"ready": readySchema(),
			"public": schema.BoolAttribute{
				MarkdownDescription: "Whether other teams can start sandboxes from the template. Default `false`. Changed in place, without a build.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"skip_cache": schema.BoolAttribute{
				MarkdownDescription: "Build every step again, ignoring E2B's build cache. Applies to the builds this resource starts; changing it alone starts none.",
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
			},
			"build_id": computedStr("ID of the current build, made by the last apply that changed a build input.", nil),
			"build_status": computedStr("Status of the current build: `building`, `waiting`, `ready` or `error`. "+
				"Anything but `ready` after an apply means the provider stopped following the build; the next plan settles it.", nil),
			"names": schema.ListAttribute{
				MarkdownDescription: "Names of the template (`namespace/name`).",
				Computed:            true,
				ElementType:         types.StringType,
			},
			"context_sha256": computedStr("Digest of the files hashes of all COPY steps (each as E2B's SDK computes it: paths, "+
				"modes, sizes and contents); null when no step copies files. Read with the template at refresh, so the plan of an "+
				"existing template shows it and decides whether a build is needed; known after apply for a new template or changed "+
				"COPY steps. An apply that builds reads the files again and stops with \"Context changed during apply\" when they "+
				"differ from what the plan read.", nil),
		},
		Blocks: map[string]schema.Block{
			"timeouts": base.ResourceTimeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}

func computedStr(desc string, mods []planmodifier.String) schema.StringAttribute {
	return schema.StringAttribute{MarkdownDescription: desc, Computed: true, PlanModifiers: mods}
}

func registrySchema() schema.SingleNestedAttribute {
	wo := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc + " Write-only: never stored in state.", Optional: true, WriteOnly: true, Sensitive: true}
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "Base image from a private registry. Give `username` and `password_wo` for a plain registry, " +
			"the `aws_*` attributes for Amazon ECR, or `gcp_service_account_json_wo` for Google's registries. " +
			"The credentials are write-only: bump `credentials_wo_version` to send new ones (that starts a new build).",
		Optional: true,
		Attributes: map[string]schema.Attribute{
			"image": schema.StringAttribute{
				MarkdownDescription: "Image reference, such as `ghcr.io/acme/app:1.2` (checked at plan).",
				Required:            true,
				Validators:          []validator.String{imageRefValidator()},
			},
			"username":    schema.StringAttribute{MarkdownDescription: "Registry user name.", Optional: true},
			"password_wo": wo("Registry password or token."),
			"aws_access_key_id": schema.StringAttribute{
				MarkdownDescription: "AWS access key ID for ECR.", Optional: true,
			},
			"aws_secret_access_key_wo":    wo("AWS secret access key for ECR."),
			"aws_region":                  schema.StringAttribute{MarkdownDescription: "AWS region of the ECR registry.", Optional: true},
			"gcp_service_account_json_wo": wo("GCP service account key (JSON) for Artifact Registry or GCR."),
			"credentials_wo_version": schema.Int64Attribute{
				MarkdownDescription: "Any number; change it to send changed write-only credentials.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
		},
	}
}

func stepsSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		MarkdownDescription: "Build steps, in order, after the base (and after the Dockerfile's steps). Each element sets exactly " +
			"one of `run`, `copy`, `env`, `workdir` and `user`, encoded as E2B's SDK encodes them, so E2B's build cache is shared with SDK builds.",
		Optional:   true,
		Validators: []validator.List{listvalidator.SizeAtLeast(1)},
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"run": schema.SingleNestedAttribute{
					MarkdownDescription: "Run a shell command (bash, in the current `workdir`, with the `env` set so far).",
					Optional:            true,
					Attributes: map[string]schema.Attribute{
						"command": schema.StringAttribute{MarkdownDescription: "The command.", Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
						"user":    schema.StringAttribute{MarkdownDescription: "Run as this user (default: the current `user`).", Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
					},
					Validators: []validator.Object{objectvalidator.ExactlyOneOf(stepKindPaths()...)},
				},
				"copy": schema.SingleNestedAttribute{
					MarkdownDescription: "Copy files from `context`.",
					Optional:            true,
					Attributes: map[string]schema.Attribute{
						"src": schema.StringAttribute{
							MarkdownDescription: "Path or glob in `context` (`*`, `?`, `[...]`, `**`, `{a,b}`); a folder is copied with everything in it. Must stay inside `context`.",
							Required:            true,
							Validators:          []validator.String{copySourceValidator()},
						},
						"dest": schema.StringAttribute{MarkdownDescription: "Destination in the template.", Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
						"user": schema.StringAttribute{MarkdownDescription: "Owner of the copied files.", Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
						"mode": schema.StringAttribute{
							MarkdownDescription: "Octal mode of the copied files, such as `0755` (default: their own modes).",
							Optional:            true,
							Validators:          []validator.String{stringvalidator.RegexMatches(octalModePattern, "must be an octal mode such as \"0755\"")},
						},
						"resolve_symlinks": schema.BoolAttribute{
							MarkdownDescription: "Copy what links point at instead of the links. Default `false`. A link that leads outside " +
								"`context` is an error at plan time either way (E2B's SDK would copy what it points at; the provider never reads " +
								"outside `context`); a dangling link is sent as a link.",
							Optional: true,
						},
					},
				},
				"env": schema.MapAttribute{
					MarkdownDescription: "Set environment variables for later steps and for sandboxes from the template. Sensitive.",
					Optional:            true,
					Sensitive:           true,
					ElementType:         types.StringType,
					Validators:          []validator.Map{mapvalidator.SizeAtLeast(1), mapvalidator.KeysAre(stringvalidator.RegexMatches(envNamePattern, "must be an environment variable name"))},
				},
				"workdir": schema.StringAttribute{
					MarkdownDescription: "Working directory of later steps and of sandboxes: an absolute path (E2B's builder does not resolve a relative one against the previous workdir, as Docker does).",
					Optional:            true,
					Validators:          []validator.String{workdirValidator()},
				},
				"user": schema.StringAttribute{MarkdownDescription: "User of later steps and of sandboxes.", Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			},
		},
	}
}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func readySchema() schema.SingleNestedAttribute {
	kinds := []string{"port", "url", "process", "file", "after"}
	one := func(self string) []path.Expression {
		var out []path.Expression
		for _, k := range kinds {
			if k != self {
				out = append(out, path.MatchRelative().AtParent().AtName(k))
			}
		}
		return out
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: "A ready check, written as E2B's SDK writes it; set exactly one of its attributes. Conflicts with `ready_cmd`.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"port": schema.Int32Attribute{
				MarkdownDescription: "Ready once something listens on this port.",
				Optional:            true,
				Validators:          []validator.Int32{int32validator.Between(1, 65535), int32validator.ExactlyOneOf(one("port")...)},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: "Ready once this URL answers with `status_code`.",
				Optional:            true,
				Validators:          []validator.String{validators.HTTPURL()},
			},
			"status_code": schema.Int32Attribute{
				MarkdownDescription: "Status `url` must answer with. Default `200`.",
				Optional:            true,
				Validators:          []validator.Int32{int32validator.Between(100, 599), int32validator.AlsoRequires(path.MatchRelative().AtParent().AtName("url"))},
			},
			"process": schema.StringAttribute{MarkdownDescription: "Ready once a process with this name runs.", Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"file":    schema.StringAttribute{MarkdownDescription: "Ready once this file exists.", Optional: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)}},
			"after": schema.StringAttribute{
				MarkdownDescription: "Ready after this long (a duration such as `20s`; whole seconds, at least `1s`).",
				Optional:            true,
				CustomType:          customtypes.GoDurationType{},
				Validators:          []validator.String{validators.GoDurationSyntax()},
			},
		},
	}
}

func (r *templateResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"template_id": identityschema.StringAttribute{RequiredForImport: true, Description: "Template ID."},
		},
	}
}
