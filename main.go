// Command terraform-provider-e2b serves the E2B provider to Terraform and OpenTofu.
package main

import (
	"context"
	"flag"
	"log"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

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
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	err := tf6server.Serve("registry.terraform.io/e2b-terraform/e2b", func() tfprotov6.ProviderServer {
		server, err := provider.ProtocolServer(provider.New(version)())()
		if err != nil {
			log.Fatal(err)
		}
		return server
	}, opts...)
	// The CLI has stopped the provider: kill the ephemeral sandboxes whose close never came.
	ctx, cancel := context.WithTimeout(context.Background(), leftoverKillTimeout)
	provider.KillLeftoverEphemeralSandboxes(ctx)
	cancel()
	stopProfile()
	if err != nil {
		log.Fatal(err)
	}
}
