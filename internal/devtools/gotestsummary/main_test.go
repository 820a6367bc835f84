package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func summarize(t *testing.T, input string) (string, bool) {
	t.Helper()
	var out bytes.Buffer
	s := &summary{out: &out, verbose: io.Discard, buffers: map[string][]string{}}
	if err := s.read(strings.NewReader(input)); err != nil {
		t.Fatalf("read: %v", err)
	}
	ok := s.finish()
	return out.String(), ok
}

func TestCountsAndShowsFailures(t *testing.T) {
	input := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: noise of a passing test\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: put the specs in ../shared/e2b-spec\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:7: want 1, got 2\n"}
{"Action":"output","Package":"p","Test":"TestC","Output":"--- FAIL: TestC (0.01s)\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.02s\n"}
{"Action":"fail","Package":"p"}
`
	out, ok := summarize(t, input)
	if ok {
		t.Error("a failing test was reported as success")
	}
	for _, want := range []string{"want 1, got 2", "--- FAIL: TestC", "put the specs in", "FAIL\tp\t0.02s", "tests: 1 passed, 1 failed, 1 skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"noise of a passing test", "=== RUN", "PASS\n"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, out)
		}
	}
}

func TestBuildFailureFailsWithoutTests(t *testing.T) {
	input := `{"ImportPath":"p [p.test]","Action":"build-output","Output":"p/x.go:3:1: syntax error\n"}
{"ImportPath":"p [p.test]","Action":"build-fail"}
{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}
{"Action":"fail","Package":"p"}
`
	out, ok := summarize(t, input)
	if ok {
		t.Error("a build failure was reported as success")
	}
	if !strings.Contains(out, "syntax error") || !strings.Contains(out, "tests: 0 passed, 0 failed, 0 skipped") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

func TestPassesThroughNonJSONLines(t *testing.T) {
	out, ok := summarize(t, "# p\nvet: x.go:1: something\n")
	if !ok {
		t.Error("plain lines alone must not fail the run")
	}
	if !strings.Contains(out, "vet: x.go:1: something") {
		t.Errorf("plain line lost:\n%s", out)
	}
}
