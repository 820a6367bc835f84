// Command cpuwrap stands in for a provider binary so a benchmark can read how
// much CPU each provider process used, whichever provider it is. Built as
// terraform-provider-<name> into a directory that also holds a file "real"
// naming the provider binary, it runs that binary with the same arguments,
// environment and standard streams (the plugin handshake passes through), and
// when it exits appends "<user µs> <sys µs> <peak RSS KiB>" to "cpu.log"
// beside itself.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	dir := filepath.Dir(self)
	real, err := os.ReadFile(filepath.Join(dir, "real"))
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(strings.TrimSpace(string(real)), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The CLI stops its plugins with signals as well as over RPC.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		line := fmt.Sprintf("%d %d %d\n", tvMicros(ru.Utime), tvMicros(ru.Stime), ru.Maxrss)
		if f, err := os.OpenFile(filepath.Join(dir, "cpu.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.WriteString(line) // one short write: lines of parallel processes stay whole
			_ = f.Close()
		}
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

func tvMicros(t syscall.Timeval) int64 { return t.Sec*1_000_000 + t.Usec }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cpuwrap:", err)
	os.Exit(1)
}
