// Package provider implements the E2B Terraform provider on terraform-plugin-framework.
package provider

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int32validator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/base"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/convert"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/customtypes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider/validators"
)

var (
	_ provider.Provider                       = &e2bProvider{}
	_ provider.ProviderWithFunctions          = &e2bProvider{}
	_ provider.ProviderWithActions            = &e2bProvider{}
	_ provider.ProviderWithListResources      = &e2bProvider{}
	_ provider.ProviderWithValidateConfig     = &e2bProvider{}
	_ provider.ProviderWithEphemeralResources = &e2bProvider{}
)

// frameworkVersion is reported in the user agent: the version linked in, as the build records it.
var frameworkVersion = func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/hashicorp/terraform-plugin-framework" {
				return strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "unknown"
}()

// Environment variables read when the matching provider attribute is not set.
const (
	envAPIKey     = "E2B_API_KEY"
	envDomain     = "E2B_DOMAIN"
	envAPIURL     = "E2B_API_URL"
	envSandboxURL = "E2B_SANDBOX_URL"
)

// Bounds of the provider's retry and timeout settings.
const (
	maxRetries        = 20
	minRetryWait      = time.Millisecond
	maxRetryWait      = 10 * time.Minute
	minRequestTimeout = time.Second
	maxRequestTimeout = time.Hour
	minCreateRate     = 0.01
	maxCreateRate     = 1000
	maxLimitWait      = time.Hour
)

// e2bProvider is the provider implementation.
type e2bProvider struct {
	version string
}

// providerModel maps the provider block.
type providerModel struct {
	APIKey          types.String           `tfsdk:"api_key"`
	Domain          types.String           `tfsdk:"domain"`
	APIURL          types.String           `tfsdk:"api_url"`
	SandboxURL      types.String           `tfsdk:"sandbox_url"`
	MaxRetries      types.Int32            `tfsdk:"max_retries"`
	RetryWaitMin    customtypes.GoDuration `tfsdk:"retry_wait_min"`
	RetryWaitMax    customtypes.GoDuration `tfsdk:"retry_wait_max"`
	RequestTimeout  customtypes.GoDuration `tfsdk:"request_timeout"`
	DefaultMetadata types.Map              `tfsdk:"default_metadata"`
	CreateRate      types.Float64          `tfsdk:"create_rate_limit"`
	LimitWait       customtypes.GoDuration `tfsdk:"sandbox_limit_wait"`
}

// New returns a constructor of the provider for the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &e2bProvider{version: version}
	}
}

func (p *e2bProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "e2b"
	resp.Version = p.version
}

func (p *e2bProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manage [E2B](https://e2b.dev) sandboxes, their files, commands and snapshots, " +
			"and read templates, sandboxes, metrics and logs.",
		Attributes: map[string]schema.Attribute{
			"api_key": schema.StringAttribute{
				MarkdownDescription: "E2B API key (`e2b_...`). Defaults to the `E2B_API_KEY` environment variable. " +
					"Only needed by operations that call E2B, so `validate` works without it.",
				Optional:  true,
				Sensitive: true,
			},
			"domain": schema.StringAttribute{
				MarkdownDescription: "E2B domain. Defaults to `E2B_DOMAIN`, then `" + e2b.DefaultDomain + "`.",
				Optional:            true,
			},
			"api_url": schema.StringAttribute{
				MarkdownDescription: "Base URL of the E2B API. Defaults to `E2B_API_URL`, then `https://api.<domain>`.",
				Optional:            true,
				Validators:          []validator.String{validators.HTTPURL()},
			},
			"sandbox_url": schema.StringAttribute{
				MarkdownDescription: "Base URL used for all traffic to the daemon inside sandboxes (envd), routed by " +
					"headers. Defaults to `E2B_SANDBOX_URL`. For self-hosted E2B and local emulators.",
				Optional:   true,
				Validators: []validator.String{validators.HTTPURL()},
			},
			"max_retries": schema.Int32Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a failed request (a 5xx on a safe call, or envd's rate limit) is "+
					"retried, 0 to %d; `0` sends every request once. Default `4`. A request that E2B's API refuses for its rate "+
					"(429) is not counted: it waits its turn within the rate E2B shows and is sent again until its operation's "+
					"timeout, as a sandbox create refused for E2B's create rate is (see Limits).", maxRetries),
				Optional:   true,
				Validators: []validator.Int32{int32validator.Between(0, maxRetries)},
			},
			"retry_wait_min": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Shortest wait before a retry, as a Go duration (%s to %s), at most `retry_wait_max`. Default `\"500ms\"`.",
					convert.ShortDuration(minRetryWait), convert.ShortDuration(maxRetryWait)),
				Optional:   true,
				CustomType: customtypes.GoDurationType{},
				Validators: []validator.String{validators.DurationBetween(minRetryWait, maxRetryWait)},
			},
			"retry_wait_max": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("Longest wait before a retry, as a Go duration (%s to %s); a longer `Retry-After` is cut to it. Default `\"10s\"`.",
					convert.ShortDuration(minRetryWait), convert.ShortDuration(maxRetryWait)),
				Optional:   true,
				CustomType: customtypes.GoDurationType{},
				Validators: []validator.String{validators.DurationBetween(minRetryWait, maxRetryWait)},
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How long one attempt of an API request may take, as a Go duration (%s to %s). Default `\"60s\"`.",
					convert.ShortDuration(minRequestTimeout), convert.ShortDuration(maxRequestTimeout)),
				Optional:   true,
				CustomType: customtypes.GoDurationType{},
				Validators: []validator.String{validators.DurationBetween(minRequestTimeout, maxRequestTimeout)},
			},
			"create_rate_limit": schema.Float64Attribute{
				MarkdownDescription: fmt.Sprintf("Sandbox creates per second that your E2B plan allows (`1` on Hobby, `5` on Pro), "+
					"%v to %v: creates are spaced to it from the first. Unset, the provider learns the rate from E2B's "+
					"429 answers (see Limits).", minCreateRate, maxCreateRate),
				Optional:   true,
				Validators: []validator.Float64{float64validator.Between(minCreateRate, maxCreateRate)},
			},
			"sandbox_limit_wait": schema.StringAttribute{
				MarkdownDescription: fmt.Sprintf("How long a sandbox create, resume or fork that E2B refuses at the team's limit of "+
					"concurrent sandboxes waits for sandboxes this run deletes or pauses, as a Go duration (0s to %s); `\"0s\"` "+
					"fails at once. The wait also ends once nothing has been deleted or paused for 5s. Default `\"1m\"`.",
					convert.ShortDuration(maxLimitWait)),
				Optional:   true,
				CustomType: customtypes.GoDurationType{},
				Validators: []validator.String{validators.DurationBetween(0, maxLimitWait)},
			},
			"default_metadata": schema.MapAttribute{
				MarkdownDescription: "Metadata merged into every sandbox's `metadata` (the sandbox's own keys win). " +
					"The merged result is the sandbox's `metadata_all`.",
				Optional:    true,
				ElementType: types.StringType,
				Validators:  validators.Metadata(),
			},
		},
	}
}

// ValidateConfig checks what depends on two settings, at validate time.
func (p *e2bProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	lo, hi := customtypes.DurationOr(cfg.RetryWaitMin, 0), customtypes.DurationOr(cfg.RetryWaitMax, 0)
	if lo > 0 && hi > 0 && lo > hi {
		resp.Diagnostics.AddAttributeError(path.Root("retry_wait_min"), "Invalid retry settings",
			fmt.Sprintf("retry_wait_min (%s) must not be longer than retry_wait_max (%s).",
				cfg.RetryWaitMin.ValueString(), cfg.RetryWaitMax.ValueString()))
	}
}

func (p *e2bProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}

	// Settings that come from something not known yet (e.g. during plan): calls fail with a clear
	// message instead of going to the default endpoint or without the key.
	var unknownSettings []string
	for _, s := range []struct {
		name  string
		value types.String
	}{{"api_key", cfg.APIKey}, {"domain", cfg.Domain}, {"api_url", cfg.APIURL}, {"sandbox_url", cfg.SandboxURL}} {
		if s.value.IsUnknown() {
			unknownSettings = append(unknownSettings, s.name)
		}
	}
	apiKey := stringOrEnv(cfg.APIKey, envAPIKey)
	// Without a key every call fails, so the plan says so (with the words the apply would use)
	// instead of planning what the apply cannot do. validate needs no credentials and does not
	// configure the provider; a key known only after apply is reported by the first call.
	if apiKey == "" && !cfg.APIKey.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), base.MissingKeySummary, base.MissingKeyDetail)
		return
	}
	domain := stringOrEnv(cfg.Domain, envDomain)
	apiURL := stringOrEnv(cfg.APIURL, envAPIURL)
	sandboxURL := stringOrEnv(cfg.SandboxURL, envSandboxURL)

	clientCfg := e2b.Config{
		APIKey:     apiKey,
		Domain:     domain,
		APIURL:     apiURL,
		SandboxURL: sandboxURL,
		Version:    p.version,
		UserAgent:  userAgent(req.TerraformVersion),
	}
	if !logsOff.Load() {
		clientCfg.Logger = tflogLogger{apiKey: apiKey}
	}
	if v := cfg.MaxRetries; !v.IsNull() && !v.IsUnknown() {
		clientCfg.RetryMax = new(int(v.ValueInt32()))
	}
	// Zero (not set) selects the client's defaults.
	clientCfg.RetryWaitMin = customtypes.DurationOr(cfg.RetryWaitMin, 0)
	clientCfg.RetryWaitMax = customtypes.DurationOr(cfg.RetryWaitMax, 0)
	clientCfg.RequestTimeout = customtypes.DurationOr(cfg.RequestTimeout, 0)
	if v := cfg.CreateRate; !v.IsNull() && !v.IsUnknown() {
		clientCfg.CreateRate = v.ValueFloat64()
	}
	if v := cfg.LimitWait; !v.IsNull() && !v.IsUnknown() {
		clientCfg.SandboxLimitWait = new(customtypes.DurationOr(v, 0))
	}

	client, err := e2b.New(clientCfg)
	if err != nil {
		resp.Diagnostics.AddError("Invalid E2B provider configuration",
			"Check api_url, sandbox_url and domain: "+err.Error())
		return
	}
	data := base.NewProviderData(client, unknownSettings)

	if convert.FullyKnown(ctx, cfg.DefaultMetadata) {
		data.DefaultMetadata = map[string]string{}
		resp.Diagnostics.Append(cfg.DefaultMetadata.ElementsAs(ctx, &data.DefaultMetadata, false)...)
	} else {
		data.DefaultMetadataUnknown = true
	}

	resp.DataSourceData = data
	resp.ResourceData = data
	resp.ActionData = data
	resp.ListResourceData = data
	resp.EphemeralResourceData = data
}

func (p *e2bProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewSandboxResource,
		NewSandboxFileResource,
		NewSandboxFolderResource,
		NewSnapshotResource,
		NewSandboxCommandResource,
		NewTemplateResource,
		NewTemplateTagResource,
		NewVolumeResource,
		NewVolumeFileResource,
		NewSecretResource,
		NewWebhookResource,
	}
}

func (p *e2bProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewTemplatesDataSource,
		NewTemplateDataSource,
		NewTemplateBuildDataSource,
		NewSandboxesDataSource,
		NewSandboxDataSource,
		NewSandboxMetricsDataSource,
		NewSandboxLogsDataSource,
		NewSnapshotsDataSource,
		NewVolumesDataSource,
		NewVolumeDataSource,
		NewVolumeFilesDataSource,
		NewSecretDataSource,
		NewWebhookDataSource,
		NewSecretsDataSource,
		NewWebhooksDataSource,
		NewWebhookDeliveriesDataSource,
		NewWebhookStatsDataSource,
		NewSandboxEventsDataSource,
		NewTeamMetricsDataSource,
	}
}

func (p *e2bProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewSandboxEphemeralResource,
		NewSandboxAccessEphemeralResource,
	}
}

func (p *e2bProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewSandboxHostFunction,
		NewSecretRefFunction,
		NewIAMTokenRefFunction,
	}
}

func (p *e2bProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		NewExecAction,
		NewSandboxSnapshotAction,
		NewSandboxPauseAction,
		NewSandboxResumeAction,
		NewSandboxRefreshAction,
		NewSandboxDownloadAction,
	}
}

func (p *e2bProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewSandboxListResource,
		NewTemplateListResource,
		NewTemplateTagListResource,
		NewSnapshotListResource,
		NewVolumeListResource,
		NewSecretListResource,
		NewWebhookListResource,
	}
}

// stringOrEnv returns the configured value, else the environment variable.
func stringOrEnv(v types.String, env string) string {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueString()
	}
	return os.Getenv(env)
}

// userAgent is appended to the client's "terraform-provider-e2b/<version>".
func userAgent(terraformVersion string) string {
	if terraformVersion == "" {
		terraformVersion = "unknown"
	}
	return "terraform-plugin-framework/" + frameworkVersion + " terraform/" + terraformVersion
}
