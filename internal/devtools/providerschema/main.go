// Command providerschema writes the provider's schemas in the format of
// `terraform providers schema -json`, read straight from the provider's own
// protocol server. Unlike the CLI output of OpenTofu it includes action and
// list resource schemas, so tfplugindocs can render every page offline.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/devtools/schemajson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider"
)

func main() {
	out := flag.String("o", "", "output file (default: standard output)")
	// tfplugindocs looks a provider up by its short name, so that is the default key.
	address := flag.String("address", "e2b", "key of the provider in provider_schemas")
	flag.Parse()

	if err := run(*out, *address); err != nil {
		fmt.Fprintln(os.Stderr, "providerschema:", err)
		os.Exit(1)
	}
}

func run(out, address string) error {
	server, err := provider.ProtocolServer(provider.New("dev")())()
	if err != nil {
		return fmt.Errorf("start provider server: %w", err)
	}
	schemas, err := schemajson.FromServer(context.Background(), server, address)
	if err != nil {
		return err
	}
	raw, err := schemajson.Marshal(schemas)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.Write(raw)
		return err
	}
	return os.WriteFile(out, raw, 0o644)
}
