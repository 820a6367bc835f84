// Command terraform-provider-e2b serves the E2B provider to Terraform and OpenTofu.
package main

import (
	"context"
	"flag"
	"log"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider"
)

// version is set at build time through -ldflags "-X main.version=...".
var version = "dev"

// leftoverKillTimeout fits in the two seconds the CLI gives a stopping provider.
const leftoverKillTimeout = 1500 * time.Millisecond

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "start the provider with support for debuggers such as delve")
	flag.Parse()

	if !debug {
		provider.SilenceDiscardedLogs()
	}
	stopProfile := startCPUProfile()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address:         "registry.terraform.io/e2b-terraform/e2b",
		Debug:           debug,
		ProtocolVersion: 6,
	})
	// The CLI has stopped the provider: kill the ephemeral sandboxes whose close never came.
	ctx, cancel := context.WithTimeout(context.Background(), leftoverKillTimeout)
	provider.KillLeftoverEphemeralSandboxes(ctx)
	cancel()
	stopProfile()
	if err != nil {
		log.Fatal(err)
	}
}
