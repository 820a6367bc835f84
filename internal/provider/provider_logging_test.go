package provider

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestTflogLoggerMasksAPIKey(t *testing.T) {
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	const key = "e2b_0123456789abcdef0123456789abcdef01234567"
	l := tflogLogger{apiKey: key}
	l.Log(ctx, "debug", "request with "+key, map[string]any{"header": "X-API-Key: " + key, "status": 200})
	l.Log(ctx, "warn", "retrying", map[string]any{"attempt": 2})
	out := buf.String()
	if strings.Contains(out, key) {
		t.Fatalf("API key leaked into logs: %s", out)
	}
	if !strings.Contains(out, "retrying") || !strings.Contains(out, `"@module":"provider.e2b"`) {
		t.Fatalf("log lines missing or not under the e2b subsystem: %s", out)
	}
}

// What a sandbox prints reaches the CLI's log output escaped: a terminal showing TF_LOG=DEBUG
// must not run the escape sequences code in a sandbox wrote.
func TestSandboxTextIsEscapedInLogs(t *testing.T) {
	const hostile = "done\x1b]0;owned\x07\x1b[2J\x9b31m"
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	logCommandOutput(ctx, e2b.OutputBatch{Stream: e2b.Stdout, Text: hostile})
	logBuildLine(ctx, e2b.BuildLogEntry{Message: hostile}, map[string]any{"step": hostile, "n": 1})
	tflogLogger{}.Log(ctx, "debug", hostile, map[string]any{"body": hostile})
	lines, err := tflogtest.MultilineJSONDecode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 {
		t.Fatalf("want 3 log lines, got %d: %v", len(lines), lines)
	}
	for _, l := range lines {
		for k, v := range l {
			if s, ok := v.(string); ok && strings.ContainsAny(s, "\x1b\x07\u009b") {
				t.Errorf("log field %s holds a raw control character: %q", k, s)
			}
		}
		if !strings.Contains(fmt.Sprint(l), "done") {
			t.Errorf("the line lost the sandbox's text: %v", l)
		}
	}
}
