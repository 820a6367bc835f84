package main

// Row is one line of the compatibility table: a feature and the oldest Terraform and OpenTofu
// (major.minor) that have it. OpenTofu is "" where no OpenTofu has it, and OpenTofuInstead then
// names what an OpenTofu user writes in its place, if anything.
type Row struct {
	Feature         string
	Terraform       string
	OpenTofu        string
	OpenTofuInstead string
}

// Table is the compatibility table, the one source of the copies in templates/index.md.tmpl
// (and so docs/index.md) and README.md.
var Table = []Row{
	{Feature: "resources, data sources, import by ID", Terraform: "1.0", OpenTofu: "1.6"},
	{Feature: "provider functions `provider::e2b::sandbox_host`, `provider::e2b::secret_ref`, `provider::e2b::iam_token_ref`",
		Terraform: "1.8", OpenTofu: "1.7"},
	{Feature: "ephemeral resources `e2b_sandbox` (with `upload` blocks), `e2b_sandbox_access`", Terraform: "1.10", OpenTofu: "1.11"},
	{Feature: "write-only `sandbox_id_wo` (`e2b_sandbox_command`, `e2b_exec`), `env_wo` (`e2b_sandbox_command`)",
		Terraform: "1.11", OpenTofu: "1.11"},
	{Feature: "write-only `e2b_secret.value`, `e2b_webhook.signature_secret`, `e2b_template.from_image_registry` credentials, " +
		"`e2b_sandbox.network.egress_proxy.password_wo` (never in plan or state)", Terraform: "1.11", OpenTofu: "1.11"},
	{Feature: "the same secrets on older versions: `sensitive_value`, `sensitive_signature_secret` (in state, marked sensitive)",
		Terraform: "1.0", OpenTofu: "1.6"},
	{Feature: "import by resource identity (`import` block with `identity`)", Terraform: "1.12", OpenTofu: "1.12"},
	{Feature: "module tests with `mock_provider \"e2b\"`", Terraform: "1.7", OpenTofu: "1.8"},
	{Feature: "action `e2b_exec` (its `env` and `stdin` are write-only, so they take ephemeral values)",
		Terraform: "1.14", OpenTofuInstead: "use `e2b_sandbox_command`"},
	{Feature: "list resources (`terraform query`)", Terraform: "1.14"},
	{Feature: "actions `e2b_sandbox_snapshot`, `e2b_sandbox_pause`, `e2b_sandbox_resume`, `e2b_sandbox_refresh`, " +
		"`e2b_sandbox_download` (`-invoke`, `action_trigger` on create and update)", Terraform: "1.14"},
	{Feature: "the same actions on `before_destroy` / `after_destroy`, with `on_failure`",
		Terraform: "1.16", OpenTofuInstead: "use `snapshot_on_destroy` on `e2b_sandbox`"},
	{Feature: "`lifecycle { destroy = false }` on `e2b_sandbox` (the CLI forgets the sandbox instead of killing it)",
		Terraform: "1.16", OpenTofu: "1.12"},
	{Feature: "`snapshot_on_destroy` on `e2b_sandbox` (a named snapshot before the sandbox is killed)", Terraform: "1.0", OpenTofu: "1.6"},
}
