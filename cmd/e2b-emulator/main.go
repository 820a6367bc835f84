// Command e2b-emulator serves a local E2B emulator (control plane and envd)
// on loopback and prints the environment to point SDKs and tests at it.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

type seedFlags []string

func (s *seedFlags) String() string     { return strings.Join(*s, ",") }
func (s *seedFlags) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var (
		addr        = flag.String("addr", "127.0.0.1:0", "listen address for the control plane and envd")
		envdAddr    = flag.String("envd-addr", "", "optional separate listen address for envd traffic")
		apiKey      = flag.String("api-key", "", "API key to accept (default: random e2b_<40 hex>)")
		maxLifetime = flag.Duration("max-lifetime", time.Hour, "maximum sandbox lifetime")
		envFile     = flag.String("env-file", "", "also write the E2B_* lines to this file (atomically, once listening)")
		dataDir     = flag.String("data-dir", "", "directory for sandbox files (default: a temporary directory)")
		isolation   = flag.String("isolation", "auto", `"auto" (private /home/user and /tmp via mount namespaces when root on Linux) or "none"`)
		quiet       = flag.Bool("quiet", false, "do not log to stderr")
		seeds       seedFlags
	)
	flag.Var(&seeds, "seed-template", "seed a team template: name[:builds] (repeatable)")
	flag.Parse()

	logger := log.New(os.Stderr, "", log.LstdFlags)
	logf := logger.Printf
	if *quiet {
		logf = func(string, ...any) {}
	}
	srv, err := emulator.Start(emulator.Options{
		Addr: *addr, EnvdAddr: *envdAddr, APIKey: *apiKey, MaxLifetime: *maxLifetime,
		DataDir: *dataDir, Isolation: *isolation, Logf: logf,
	})
	if err != nil {
		logger.Fatal(err)
	}
	for _, s := range seeds {
		name, builds := s, 1
		if n, b, ok := strings.Cut(s, ":"); ok {
			if _, err := fmt.Sscanf(b, "%d", &builds); err != nil {
				logger.Fatalf("-seed-template %q: builds must be a number", s)
			}
			name = n
		}
		srv.SeedTemplate(emulator.TemplateSeed{Names: []string{name}, Builds: builds})
	}
	env := fmt.Sprintf("E2B_API_URL=%s\nE2B_SANDBOX_URL=%s\nE2B_API_KEY=%s\n", srv.APIURL(), srv.SandboxURL(), srv.APIKey())
	fmt.Print(env)
	if *envFile != "" {
		if err := writeAtomically(*envFile, env); err != nil {
			_ = srv.Close()
			logger.Fatal(err)
		}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	<-sigs
	logf("e2b-emulator: shutting down")
	if err := srv.Close(); err != nil {
		logger.Fatal(err)
	}
}

func writeAtomically(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
