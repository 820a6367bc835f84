package provider

import "testing"

// The provider is silent exactly when the CLI would drop its lines: the level TF_LOG_PROVIDER
// names, else TF_LOG's, decides; TF_LOG_PROVIDER_E2B alone is not shown by the CLI.
func TestLogsDiscarded(t *testing.T) {
	for _, tc := range []struct {
		tfLog, tfLogProvider, tfLogProviderE2B string
		discarded                              bool
	}{
		{discarded: true},
		{tfLog: "OFF", discarded: true},
		{tfLog: "off", discarded: true},
		{tfLog: "TRACE"},
		{tfLog: "warn"},
		{tfLog: "JSON"},
		{tfLog: "nonsense"}, // the CLI reads an unknown level as TRACE
		{tfLogProvider: "DEBUG"},
		{tfLog: "TRACE", tfLogProvider: "off", discarded: true},
		{tfLog: "OFF", tfLogProvider: "ERROR"},
		{tfLogProviderE2B: "TRACE", discarded: true},
		{tfLog: "INFO", tfLogProviderE2B: "TRACE"},
	} {
		t.Setenv("TF_LOG", tc.tfLog)
		t.Setenv("TF_LOG_PROVIDER", tc.tfLogProvider)
		t.Setenv("TF_LOG_PROVIDER_E2B", tc.tfLogProviderE2B)
		if got := LogsDiscarded(); got != tc.discarded {
			t.Errorf("TF_LOG=%q TF_LOG_PROVIDER=%q TF_LOG_PROVIDER_E2B=%q: discarded %v, want %v",
				tc.tfLog, tc.tfLogProvider, tc.tfLogProviderE2B, got, tc.discarded)
		}
	}
}
