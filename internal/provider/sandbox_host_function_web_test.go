package provider

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// A web server started in a sandbox answers at the host sandbox_host() returns: the test sends
// a real HTTP request there. Against the emulator, which has no DNS, the request's connection
// goes to the sandbox URL, the host name staying the function's, as a resolver pointing that
// name at the emulator would make it.
func TestAccSandboxHostFunction_webServer(t *testing.T) {
	srv := testAccBackend(t)
	port := 8000
	if srv != nil {
		port = testAccFreePort(t) // the emulator's sandboxes share the host's ports
	}
	tc := testAccCase(t, testAccCheckSandboxGone(t, srv), []resource.TestStep{{
		Config: testAccProviderBlock(srv) + fmt.Sprintf(`
resource "e2b_sandbox" "web" {
  template = "base"
  timeout  = "10m"
}

resource "e2b_sandbox_command" "serve" {
  sandbox_id = e2b_sandbox.web.id
  command    = "mkdir -p ~/site && echo \"hello from $E2B_SANDBOX_ID\" > ~/site/index.html && cd ~/site && nohup python3 -m http.server %[1]d >/dev/null 2>&1 &"
}

output "web_host" {
  value = provider::e2b::sandbox_host(e2b_sandbox.web.id, %[1]d)
}
`, port),
		Check: func(s *terraform.State) error {
			id, err := testAccAttr(s, "e2b_sandbox.web", "id")
			if err != nil {
				return err
			}
			out, ok := s.RootModule().Outputs["web_host"]
			if !ok {
				return fmt.Errorf("no web_host output")
			}
			host, _ := out.Value.(string)
			if host != fmt.Sprintf("%d-%s.e2b.app", port, id) {
				return fmt.Errorf("sandbox_host() = %q", host)
			}
			body, err := testAccGetSandboxPage(srv, host)
			if err != nil {
				return err
			}
			if !strings.Contains(body, "hello from "+id) {
				return fmt.Errorf("the page at %s is not the sandbox's: %q", host, body)
			}
			return nil
		},
	}})
	tc.TerraformVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)}
	resource.ParallelTest(t, tc)
}

// testAccGetSandboxPage GETs / at host, retrying while the sandbox's server starts. With an
// emulator the connection goes to its sandbox URL.
func testAccGetSandboxPage(srv *emulator.Server, host string) (string, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	scheme := "https"
	if srv != nil {
		u, err := url.Parse(srv.SandboxURL())
		if err != nil {
			return "", err
		}
		scheme = "http"
		client.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, u.Host)
		}}
	}
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		resp, err := client.Get(scheme + "://" + host + "/")
		if err != nil {
			last = err.Error()
			continue
		}
		data, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return string(data), nil
		}
		last = fmt.Sprintf("%d %s", resp.StatusCode, data)
	}
	return "", fmt.Errorf("GET %s://%s/: %s", scheme, host, last)
}

// testAccFreePort is a TCP port nothing on this machine listens on now.
func testAccFreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
