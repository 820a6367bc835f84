package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
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
