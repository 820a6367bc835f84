package e2b_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

func TestValidateHTTPSPorts(t *testing.T) {
	many := make([]int, e2b.MaxHTTPSPorts+1)
	for i := range many {
		many[i] = i + 1
	}
	for _, tc := range []struct {
		ports []int
		want  string // "" = accepted
	}{
		{nil, ""},
		{[]int{1, 443, 65535}, ""},
		{many[:e2b.MaxHTTPSPorts], ""},
		{many, "at most 128"},
		{[]int{0}, "not between 1 and 65535"},
		{[]int{65536}, "not between 1 and 65535"},
		{[]int{49983}, "envd's"},
		{[]int{443, 443}, "listed twice"},
	} {
		err := e2b.ValidateHTTPSPorts(tc.ports)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v refused: %v", tc.ports, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want an error with %q", tc.ports, err, tc.want)
		}
	}
}

// The ports go out on create and come back in the sandbox's detail; a bad list never leaves
// the client.
func TestEmulatorHTTPSPortsRoundTrip(t *testing.T) {
	e := newEnv(t)
	sb := e.create(t, e2b.CreateSandboxRequest{Network: &e2b.NetworkConfig{HTTPSPorts: []int{8443, 3000}}})
	d, err := e.c.GetSandbox(e.ctx, sb.SandboxID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Network == nil || !slices.Equal(d.Network.HTTPSPorts, []int{8443, 3000}) {
		t.Fatalf("detail network %+v, want httpsPorts [8443 3000]", d.Network)
	}
	before := e.srv.Counters().Requests["POST /v2/sandboxes"]
	if before == 0 {
		t.Fatal("the emulator counted no create: the count below would prove nothing")
	}
	_, err = e.c.CreateSandbox(e.ctx, e2b.CreateSandboxRequest{TemplateID: "base",
		Network: &e2b.NetworkConfig{HTTPSPorts: []int{49983}}})
	if err == nil || !strings.Contains(err.Error(), "49983") {
		t.Fatalf("create with the envd port: %v", err)
	}
	if after := e.srv.Counters().Requests["POST /v2/sandboxes"]; after != before {
		t.Fatalf("a refused port list reached E2B (%d creates, was %d)", after, before)
	}
}
