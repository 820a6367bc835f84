// Command terraform-provider-e2b serves the E2B provider to Terraform and OpenTofu.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/process"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/provider"
)

// version is set at build time through -ldflags "-X main.version=...".
var version = "dev"

// leftoverKillTimeout fits in the two seconds the CLI gives a stopping provider.
const leftoverKillTimeout = 1500 * time.Millisecond

// orphanKillTimeout bounds the cleanup of a provider whose CLI is gone: nobody waits for it.
const orphanKillTimeout = 30 * time.Second

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "start the provider with support for debuggers such as delve")
	flag.Parse()

	if !debug {
		provider.SilenceDiscardedLogs()
	}
	stopProfile := process.StartCPUProfile()
	// The ephemeral sandboxes whose close never came are killed once, whether the CLI stops the
	// provider or is gone; an exit for a gone CLI waits for a cleanup already under way.
	var cleanup sync.Once
	finish := func(timeout time.Duration) {
		cleanup.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			provider.KillLeftoverEphemeralSandboxes(ctx)
			cancel()
			stopProfile()
		})
	}
	if !debug {
		go process.WatchCLI(os.Getppid(), process.CLIWatchInterval, func() {
			// The CLI's end of stderr is gone: a write to it must not end the process by SIGPIPE
			// before the sandboxes are killed.
			signal.Ignore(syscall.SIGPIPE)
			finish(orphanKillTimeout)
			os.Exit(1)
		})
	}
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
	finish(leftoverKillTimeout) // The CLI has stopped the provider.
	if err != nil {
		log.Fatal(err)
	}
}
