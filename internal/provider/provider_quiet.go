package provider

import (
	"os"
	"strings"
	"sync/atomic"
)

// logsOff is set by SilenceDiscardedLogs: the client then gets no logger at all.
var logsOff atomic.Bool

// LogsDiscarded reports whether the CLI that started this process drops every line its providers
// log. OpenTofu and Terraform show provider logs at the level TF_LOG_PROVIDER names, else TF_LOG;
// unset or OFF means none (any other value, even an invalid one, means some).
func LogsDiscarded() bool {
	level := os.Getenv("TF_LOG_PROVIDER")
	if level == "" {
		level = os.Getenv("TF_LOG")
	}
	return level == "" || strings.EqualFold(level, "off")
}

// SilenceDiscardedLogs turns off the plugin SDK's loggers (the framework records every step of
// every call at TRACE) and this provider's, when LogsDiscarded: otherwise each record is built,
// encoded as JSON and written to stderr, where the CLI parses it only to drop it. Call it before
// serving, and not when a developer runs the provider with -debug and reads its stderr directly.
func SilenceDiscardedLogs() {
	if !LogsDiscarded() {
		return
	}
	for _, name := range silencedLogLevels {
		_ = os.Setenv(name, "OFF")
	}
	logsOff.Store(true)
}

// silencedLogLevels are the levels terraform-plugin-go and terraform-plugin-framework read for
// the SDK, its protocol and framework subsystems, and the provider's own logger
// (TF_LOG_PROVIDER_<type>).
var silencedLogLevels = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_E2B"}
