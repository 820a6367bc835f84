package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// tflogLogger forwards the client's (already redacted) request and response lines to tflog
// under the "e2b" subsystem. The API key is masked again here as a second line of defence.
type tflogLogger struct {
	apiKey string
}

var _ e2b.Logger = tflogLogger{}

func (l tflogLogger) Log(ctx context.Context, level, msg string, fields map[string]any) {
	ctx = tflog.NewSubsystem(ctx, "e2b")
	if l.apiKey != "" {
		ctx = tflog.SubsystemMaskLogStrings(ctx, "e2b", l.apiKey)
	}
	switch strings.ToLower(level) {
	case "error":
		tflog.SubsystemError(ctx, "e2b", msg, fields)
	case "warn", "warning":
		tflog.SubsystemWarn(ctx, "e2b", msg, fields)
	case "info":
		tflog.SubsystemInfo(ctx, "e2b", msg, fields)
	case "trace":
		tflog.SubsystemTrace(ctx, "e2b", msg, fields)
	default:
		tflog.SubsystemDebug(ctx, "e2b", msg, fields)
	}
}
