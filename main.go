// Command terraform-provider-e2b serves the E2B provider to Terraform and OpenTofu.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider"
)

// version is set at build time through -ldflags "-X main.version=...".
var version = "dev"

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
	stopProfile()
	if err != nil {
		log.Fatal(err)
	}
}
