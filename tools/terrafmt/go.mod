// Pins terrafmt, which formats and checks the HCL inside Go tests, docs/, templates/ and
// examples/ (the lint stage): go.sum fixes it and every module it builds from. scripts/lib.sh
// runs it with `go tool -modfile=tools/terrafmt/go.mod`, in a module of its own like every tool
// (see tools/gotestsum/go.mod). Two of its dependencies are raised above what v0.5.2 asks for:
// golang.org/x/tools v0.36.0, whose go/ast walker knows generic types (v0.1.5 panics on the first
// generic Go file), and github.com/hashicorp/hcl/v2 v2.24.0, which parses provider functions
// (provider::e2b::secret_ref) that v2.13 rejects.
module github.com/e2b-terraform/terraform-provider-e2b/tools/terrafmt

go 1.26.6

tool github.com/katbyte/terrafmt

require (
	github.com/agext/levenshtein v1.2.3 // indirect
	github.com/apparentlymart/go-textseg/v15 v15.0.0 // indirect
	github.com/fsnotify/fsnotify v1.5.4 // indirect
	github.com/google/go-cmp v0.6.0 // indirect
	github.com/gookit/color v1.5.1 // indirect
	github.com/hashicorp/errwrap v1.0.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/hashicorp/go-version v1.6.0 // indirect
	github.com/hashicorp/hc-install v0.4.0 // indirect
	github.com/hashicorp/hcl v1.0.0 // indirect
	github.com/hashicorp/hcl/v2 v2.24.0 // indirect
	github.com/hashicorp/terraform-exec v0.17.2 // indirect
	github.com/hashicorp/terraform-json v0.14.0 // indirect
	github.com/inconshreveable/mousetrap v1.0.0 // indirect
	github.com/katbyte/andreyvit-diff v0.0.1 // indirect
	github.com/katbyte/sergi-go-diff v1.1.1 // indirect
	github.com/katbyte/terrafmt v0.5.2 // indirect
	github.com/magiconair/properties v1.8.6 // indirect
	github.com/mitchellh/go-wordwrap v1.0.1 // indirect
	github.com/mitchellh/mapstructure v1.5.0 // indirect
	github.com/pelletier/go-toml v1.9.5 // indirect
	github.com/pelletier/go-toml/v2 v2.0.1 // indirect
	github.com/sirupsen/logrus v1.9.0 // indirect
	github.com/spf13/afero v1.9.2 // indirect
	github.com/spf13/cast v1.5.0 // indirect
	github.com/spf13/cobra v1.5.0 // indirect
	github.com/spf13/jwalterweatherman v1.1.0 // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	github.com/spf13/viper v1.12.0 // indirect
	github.com/subosito/gotenv v1.3.0 // indirect
	github.com/xo/terminfo v0.0.0-20210125001918-ca9a967f8778 // indirect
	github.com/zclconf/go-cty v1.16.3 // indirect
	golang.org/x/crypto v0.38.0 // indirect
	golang.org/x/mod v0.27.0 // indirect
	golang.org/x/sync v0.16.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
	golang.org/x/text v0.25.0 // indirect
	golang.org/x/tools v0.36.0 // indirect
	gopkg.in/ini.v1 v1.66.4 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
