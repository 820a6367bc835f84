// Command gotestsummary reads `go test -json` on standard input and prints
// what a plain `go test` run prints (the per-package ok/FAIL lines and the
// output of failing tests), plus skip reasons and a closing count line:
//
//	tests: 120 passed, 0 failed, 3 skipped
//
// It exits non-zero when a test or a package failed, so a pipeline can rely on
// it as well as on go test's own exit status. With -log, the full verbose
// output is also written to a file for later reading.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type summary struct {
	out      io.Writer
	verbose  io.Writer
	buffers  map[string][]string
	passed   int
	failed   int
	skipped  int
	failPkgs []string
}

func main() {
	logPath := flag.String("log", "", "also write the full verbose output to this file")
	flag.Parse()

	s := &summary{out: os.Stdout, verbose: io.Discard, buffers: map[string][]string{}}
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gotestsummary:", err)
			os.Exit(2)
		}
		defer f.Close()
		s.verbose = f
	}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "gotestsummary:", err)
		os.Exit(2)
	}
	if !s.finish() {
		os.Exit(1)
	}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			// Not an event (for example a vet or linker message): pass it on.
			fmt.Fprintln(s.out, string(line))
			fmt.Fprintln(s.verbose, string(line))
			continue
		}
		s.handle(ev)
	}
	return sc.Err()
}

func (s *summary) handle(ev event) {
	if ev.Output != "" {
		fmt.Fprint(s.verbose, ev.Output)
	}
	switch {
	case ev.Action == "build-output":
		fmt.Fprint(s.out, ev.Output)
	case ev.Action == "build-fail":
		s.failPkgs = append(s.failPkgs, ev.ImportPath)
	case ev.Test == "":
		s.packageEvent(ev)
	default:
		s.testEvent(ev)
	}
}

func (s *summary) packageEvent(ev event) {
	switch ev.Action {
	case "output":
		// A plain run prints everything except the bare PASS marker.
		if strings.TrimSpace(ev.Output) != "PASS" {
			fmt.Fprint(s.out, ev.Output)
		}
	case "fail":
		s.failPkgs = append(s.failPkgs, ev.Package)
	}
}

func (s *summary) testEvent(ev event) {
	key := ev.Package + " " + ev.Test
	switch ev.Action {
	case "output":
		s.buffers[key] = append(s.buffers[key], ev.Output)
	case "pass":
		s.passed++
		delete(s.buffers, key)
	case "skip":
		s.skipped++
		s.flush(key)
	case "fail":
		s.failed++
		s.flush(key)
	}
}

// flush prints a finished test's output without the run/pause/cont markers.
func (s *summary) flush(key string) {
	for _, line := range s.buffers[key] {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "=== ") {
			continue
		}
		fmt.Fprint(s.out, line)
	}
	delete(s.buffers, key)
}

func (s *summary) finish() bool {
	if len(s.failPkgs) > 0 {
		fmt.Fprintf(s.out, "failed packages: %s\n", strings.Join(s.failPkgs, " "))
	}
	fmt.Fprintf(s.out, "tests: %d passed, %d failed, %d skipped\n", s.passed, s.failed, s.skipped)
	return s.failed == 0 && len(s.failPkgs) == 0
}
