// Command e2b-emulator serves a local E2B emulator (control plane and envd)
// on loopback and prints the environment to point SDKs and tests at it:
//
//	E2B_API_URL=http://127.0.0.1:PORT
//	E2B_SANDBOX_URL=http://127.0.0.1:PORT
//	E2B_API_KEY=e2b_...
//	E2B_ACCESS_TOKEN=sk_e2b_...
//	E2B_EMULATOR_ADMIN_TOKEN=e2badm_...
//
// E2B_ACCESS_TOKEN is the user's access token (random unless -access-token
// chooses it), which E2B's deprecated operations take as "Authorization:
// Bearer <token>" (POST /templates, GET /teams, ...) and E2B's CLI reads from
// that variable. The admin API (/_emulator/*) needs the admin token (random
// unless -admin-token chooses it). With -quiet neither the API key, the
// access token nor the admin token is printed (stdout ends up in CI logs):
// they go only to the -env-file, and -quiet without -env-file or -api-key is
// refused, since the key would then be known to nobody.
//
// It serves until SIGINT or SIGTERM and then kills every sandbox process.
// What isolates a sandbox from the host, and what the host here cannot
// provide, is logged at start and listed by -help (package sandboxos).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if err := run(os.Args[1:], os.Stdout, os.Stderr, stop); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "e2b-emulator:", err)
		os.Exit(1)
	}
}

type seedFlags []string

func (s *seedFlags) String() string     { return strings.Join(*s, ",") }
func (s *seedFlags) Set(v string) error { *s = append(*s, v); return nil }

// run parses flags, serves until stop delivers, then shuts down.
func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("e2b-emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage of e2b-emulator:")
		fs.PrintDefaults()
		gaps := sandboxos.HostGaps()
		if len(gaps) == 0 {
			gaps = []string{"each sandbox gets a private root, PID, mount and user namespaces, and a cgroup with memory, process and CPU limits; commands run as the user a request names, and sudo makes them root"}
		}
		fmt.Fprintln(stderr, "\nSandbox isolation on this host:")
		for _, g := range gaps {
			fmt.Fprintln(stderr, "  "+g)
		}
	}
	var (
		addr         = fs.String("addr", "127.0.0.1:0", "listen address for the control plane and envd")
		envdAddr     = fs.String("envd-addr", "", "optional separate listen address for envd traffic only")
		apiKey       = fs.String("api-key", "", "API key to accept (default: random e2b_<40 hex>)")
		accessToken  = fs.String("access-token", "", "the access token to accept where E2B's spec takes one, as \"Authorization: Bearer <token>\" (default: random sk_e2b_<40 hex>, printed and written to -env-file as E2B_ACCESS_TOKEN)")
		maxLifetime  = fs.Duration("max-lifetime", time.Hour, "maximum sandbox lifetime (create/connect beyond it answer 400)")
		envFile      = fs.String("env-file", "", "also write the E2B_* lines to this file, atomically, once listening")
		dataDir      = fs.String("data-dir", "", "directory for sandbox files (default: a temporary directory removed on exit)")
		isolation    = fs.String("isolation", "auto", `"auto" (where Linux allows it, each sandbox its own root filesystem, an overlay, in PID, mount and, where the host allows one, user namespaces of its own, and a cgroup), "userns" (the same, never without a user namespace) or "none" (sandboxes share the host's root and processes)`)
		imageStore   = fs.String("image-store", "", "directory of root filesystems (directories or tar archives) named after images, for fromImage template builds")
		hostRoot     = fs.String("host-root-images", "", "comma-separated images (\"*\" for any) that build on the host's root filesystem when -image-store lacks them; any other missing image fails its build")
		readyTimeout = fs.Duration("ready-timeout", 60*time.Second, "how long a template's ready command may take, in its build and in each sandbox created from it")
		quiet        = fs.Bool("quiet", false, "do not log to stderr, and keep the API key and the tokens off stdout (they go only to -env-file)")
		adminToken   = fs.String("admin-token", "", "the token the admin API (/_emulator/*) needs as \"Authorization: Bearer <token>\" (default: random e2badm_<48 hex>, printed and written to -env-file as E2B_EMULATOR_ADMIN_TOKEN)")
		idle         = fs.Duration("stream-idle-timeout", 2*time.Minute, "cut a request whose peer neither reads nor sends for this long")
		maxSandboxes = fs.Int("max-concurrent-sandboxes", 0, "answer a create, resume or fork over this many running sandboxes 429 as E2B does (Hobby 20, Pro 100; 0 = no limit)")
		createRate   = fs.Float64("create-rate", 0, "sandbox creates per second before E2B's 429 (Hobby 1, Pro 5; 0 = no limit)")
		createBurst  = fs.Int("create-burst", 0, "creates that may go at once under -create-rate (default: one second's worth)")
		apiRate      = fs.String("api-rate", "", "control-plane requests per period before E2B's 429, as N/period (E2B: 20000/30s; default: no limit)")
		noColdResume = fs.Bool("disk-only-resume-off", false, "answer memory=false on connect or resume of a sandbox paused with its memory 400, as E2B does where resuming without memory is not enabled (default: it cold-boots the sandbox)")
		noV1Routes   = fs.Bool("sandbox-routes-v1-off", false, "answer the deprecated v1 create, connect and fork routes (POST /sandboxes, /sandboxes/{id}/connect, /sandboxes/{id}/fork) 404, as an E2B that has retired them")
		noV2Routes   = fs.Bool("sandbox-routes-v2-off", false, "answer the /v2 create, connect and fork routes 404, as an older self-hosted E2B")
		forkTeamCap  = fs.Int("fork-team-cap", 0, "the most forks one v2 fork may ask for (default 20, E2B's)")
		transition   = fs.Duration("transition-time", 250*time.Millisecond, "how long a pause or resume lasts: a pause, resume or connect of the sandbox meanwhile waits for it, as E2B's do (0 = none)")
		seeds        seedFlags
	)
	fs.Var(&seeds, "seed-template", "seed a team template `name[:builds]` (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *quiet && *envFile == "" && *apiKey == "" {
		return errors.New("-quiet keeps the API key off stdout: give -env-file FILE to receive it, or choose it with -api-key")
	}
	limits := emulator.Limits{MaxConcurrentSandboxes: *maxSandboxes, CreateRate: *createRate, CreateBurst: *createBurst}
	if *apiRate != "" {
		n, period, err := parseRate(*apiRate)
		if err != nil {
			return err
		}
		limits.APIRequests, limits.APIPeriod = n, period
	}
	if err := limits.Validate(); err != nil {
		return fmt.Errorf("limits: %w", err)
	}
	if *transition == 0 {
		*transition = -1 // Options: negative for none, zero for the default
	}
	logger := log.New(stderr, "", log.LstdFlags)
	logf := logger.Printf
	if *quiet {
		logf = func(string, ...any) {}
	}
	srv, err := emulator.Start(emulator.Options{
		Addr: *addr, EnvdAddr: *envdAddr, APIKey: *apiKey, AccessToken: *accessToken, MaxLifetime: *maxLifetime,
		DataDir: *dataDir, Isolation: *isolation, ImageStore: *imageStore, HostRootImages: splitList(*hostRoot), ReadyTimeout: *readyTimeout,
		AdminToken: *adminToken, StreamIdleTimeout: *idle, Limits: limits, DiskOnlyResumeOff: *noColdResume, Logf: logf,
		SandboxRoutesV1Off: *noV1Routes, SandboxRoutesV2Off: *noV2Routes, ForkTeamCap: *forkTeamCap,
		TransitionTime: *transition,
	})
	if err != nil {
		return err
	}
	for _, s := range seeds {
		seed, err := parseSeed(s)
		if err != nil {
			_ = srv.Close()
			return err
		}
		srv.SeedTemplate(seed)
	}
	urls := fmt.Sprintf("E2B_API_URL=%s\nE2B_SANDBOX_URL=%s\n", srv.APIURL(), srv.SandboxURL())
	keyLine := "E2B_API_KEY=" + srv.APIKey() + "\nE2B_ACCESS_TOKEN=" + srv.AccessToken() +
		"\nE2B_EMULATOR_ADMIN_TOKEN=" + srv.AdminToken() + "\n"
	if *envFile != "" {
		if err := writeAtomically(*envFile, urls+keyLine); err != nil {
			_ = srv.Close()
			return err
		}
	}
	printed := urls + keyLine
	if *quiet {
		printed = urls
	}
	if _, err := io.WriteString(stdout, printed); err != nil {
		_ = srv.Close()
		return err
	}
	<-stop
	logf("e2b-emulator: shutting down")
	return srv.Close()
}

// splitList reads a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parseRate reads "N/period", such as "20000/30s".
func parseRate(s string) (int, time.Duration, error) {
	n, p, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 {
		return 0, 0, fmt.Errorf("-api-rate %q: want requests/period, such as 20000/30s", s)
	}
	period, err := time.ParseDuration(p)
	if err != nil || period <= 0 {
		return 0, 0, fmt.Errorf("-api-rate %q: the period must be a positive duration, such as 30s", s)
	}
	return count, period, nil
}

// parseSeed reads "name[:builds]".
func parseSeed(s string) (emulator.TemplateSeed, error) {
	name, builds := s, 1
	if n, b, ok := strings.Cut(s, ":"); ok {
		v, err := strconv.Atoi(b)
		if err != nil || v < 1 {
			return emulator.TemplateSeed{}, fmt.Errorf("-seed-template %q: builds must be a positive number", s)
		}
		name, builds = n, v
	}
	if name == "" {
		return emulator.TemplateSeed{}, fmt.Errorf("-seed-template %q: empty name", s)
	}
	return emulator.TemplateSeed{Names: []string{name}, Builds: builds}, nil
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
