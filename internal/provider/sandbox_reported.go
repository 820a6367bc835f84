package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int32planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
)

// sandboxReported is what E2B reports of every sandbox, listed or read one by one, as the
// attributes the e2b_sandbox resource, the e2b_sandbox and e2b_sandboxes data sources and the
// e2b_sandbox list resource share, under the same names. Their models embed it, and
// reportedSandbox is the one mapping from E2B's answer: an attribute E2B reports of every
// sandbox is added here once, with its schemas (reportedSandboxResourceAttributes for the
// resource, reportedSandboxAttributes for the data sources).
type sandboxReported struct {
	ID          types.String      `tfsdk:"id"`
	TemplateID  types.String      `tfsdk:"template_id"`
	Alias       types.String      `tfsdk:"alias"`
	State       types.String      `tfsdk:"state"`
	EnvdVersion types.String      `tfsdk:"envd_version"`
	StartedAt   timetypes.RFC3339 `tfsdk:"started_at"`
	EndAt       timetypes.RFC3339 `tfsdk:"end_at"`
	CPUCount    types.Int32       `tfsdk:"cpu_count"`
	MemoryMB    types.Int32       `tfsdk:"memory_mb"`
	DiskSizeMB  types.Int32       `tfsdk:"disk_size_mb"`
}

// reportedSandbox maps a listed sandbox.
func reportedSandbox(s e2b.ListedSandbox) sandboxReported {
	return sandboxReported{
		ID:          types.StringValue(s.SandboxID),
		TemplateID:  types.StringValue(s.TemplateID),
		Alias:       convert.OptionalString(s.Alias),
		State:       types.StringValue(s.State),
		EnvdVersion: types.StringValue(s.EnvdVersion),
		StartedAt:   convert.TimeValue(s.StartedAt),
		EndAt:       convert.TimeValue(s.EndAt),
		CPUCount:    types.Int32Value(s.CPUCount),
		MemoryMB:    types.Int32Value(s.MemoryMB),
		DiskSizeMB:  types.Int32Value(s.DiskSizeMB),
	}
}

// reportedDetail maps a sandbox read one by one: its detail holds all a listed sandbox does.
func reportedDetail(d *e2b.SandboxDetail) sandboxReported {
	return reportedSandbox(e2b.ListedSandbox{
		SandboxID: d.SandboxID, TemplateID: d.TemplateID, ClientID: d.ClientID, Alias: d.Alias, State: d.State,
		EnvdVersion: d.EnvdVersion, StartedAt: d.StartedAt, EndAt: d.EndAt,
		CPUCount: d.CPUCount, MemoryMB: d.MemoryMB, DiskSizeMB: d.DiskSizeMB, Metadata: d.Metadata,
	})
}

// reportedSandboxResourceAttributes are e2b_sandbox's schema of sandboxReported: computed, and
// kept from state in a plan where they cannot change (state changes with every pause and resume,
// started_at and end_at with every read).
func reportedSandboxResourceAttributes() map[string]rschema.Attribute {
	stable := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	stableInt := []planmodifier.Int32{int32planmodifier.UseStateForUnknown()}
	return map[string]rschema.Attribute{
		"id":           base.ComputedString("Sandbox ID.", stable),
		"template_id":  base.ComputedString("ID of the template the sandbox runs.", stable),
		"alias":        base.ComputedString("Alias of the template, when it has one.", stable),
		"envd_version": base.ComputedString("Version of envd, the daemon inside the sandbox.", stable),
		"state":        base.ComputedString("`running` or `paused`.", nil),
		"started_at":   base.ComputedTime("When the sandbox was started or last resumed (RFC 3339)."),
		"end_at":       base.ComputedTime("When the sandbox times out (RFC 3339); for a paused sandbox, when it was paused. Refreshed on every read."),
		"cpu_count":    base.ComputedInt32("Number of vCPUs.", stableInt),
		"memory_mb":    base.ComputedInt32("Memory in MiB.", stableInt),
		"disk_size_mb": base.ComputedInt32("Disk size in MiB.", stableInt),
	}
}

// reportedSandboxAttributes are the data sources' schema of sandboxReported, with metadata
// (all of it, as E2B reports it); the e2b_sandbox data source has them with an id of its own.
func reportedSandboxAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.StringAttribute{Computed: true, MarkdownDescription: "Sandbox ID."},
		"template_id":  schema.StringAttribute{Computed: true, MarkdownDescription: "Template ID."},
		"alias":        schema.StringAttribute{Computed: true, MarkdownDescription: "Template alias, if any."},
		"state":        schema.StringAttribute{Computed: true, MarkdownDescription: "`running` or `paused`."},
		"envd_version": schema.StringAttribute{Computed: true, MarkdownDescription: "envd version."},
		"started_at":   base.ComputedDataSourceTime("Start or last resume (RFC 3339)."),
		"end_at":       base.ComputedDataSourceTime("When it times out, or when it was paused (RFC 3339)."),
		"cpu_count":    schema.Int32Attribute{Computed: true, MarkdownDescription: "vCPUs."},
		"memory_mb":    schema.Int32Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
		"disk_size_mb": schema.Int32Attribute{Computed: true, MarkdownDescription: "Disk size in MiB."},
		"metadata":     schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata."},
	}
}
