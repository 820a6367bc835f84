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
	msg, fields = safeLogLine(msg, fields)
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

// safeLogLine escapes terminal control sequences in a log line's message and string fields. What a
// sandbox prints (command output, build logs, names of its files, an envd's error text) reaches
// the CLI's log output, which a terminal shows: code in a sandbox must not be able to write there.
func safeLogLine(msg string, fields map[string]any) (string, map[string]any) {
	safe := make(map[string]any, len(fields))
	for k, v := range fields {
		if s, ok := v.(string); ok {
			v = e2b.SafeText(s)
		}
		safe[k] = v
	}
	return e2b.SafeText(msg), safe
}

// logCommandOutput logs a batch of a command's output at debug level, escaped.
func logCommandOutput(ctx context.Context, b e2b.OutputBatch) {
	msg, fields := safeLogLine("command output", map[string]any{"stream": b.Stream.String(), "text": b.Text})
	tflog.Debug(ctx, msg, fields)
}

// logBuildLine logs a line of a template build's log (what the build's commands printed), escaped.
func logBuildLine(ctx context.Context, l e2b.BuildLogEntry, fields map[string]any) {
	msg, safe := safeLogLine("template build: "+l.Message, fields)
	tflog.Info(ctx, msg, safe)
}
