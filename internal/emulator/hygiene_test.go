package emulator_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

func TestMalformedInputIsRefusedLikeE2B(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	for _, path := range []string{"/v2/sandboxes?metadata=", "/sandboxes?metadata=", "/v2/sandboxes?metadata=" + url.QueryEscape("%zz=1")} {
		if st, data, _ := c.API("GET", path, nil); st != http.StatusBadRequest || !strings.Contains(string(data), "metadata") {
			t.Fatalf("GET %s: %d %s, want 400", path, st, data)
		}
	}
	for _, envs := range []map[string]string{{"A": "x\x00y"}, {"A\x00B": "x"}, {"": "x"}, {"A=B": "x"}} {
		st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "envVars": envs})
		if st != http.StatusBadRequest || !strings.Contains(string(data), "envVars") {
			t.Fatalf("create with envVars %q: %d %s, want 400", envs, st, data)
		}
	}
	sb := c.Create(map[string]any{})
	ps := c.OpenStream(sb, "process.Process/Start", map[string]any{
		"process": map[string]any{"cmd": "/bin/true", "envs": map[string]string{"A": "x\x00y"}}}, nil)
	f, err := ps.Next()
	if err != nil || f.Flags&0x02 == 0 || !strings.Contains(fmt.Sprint(f.Msg), "invalid_argument") {
		t.Fatalf("start with a NUL in envs: %+v %v, want an invalid_argument end of stream", f, err)
	}
}

// TestStuckPeersAreCut: an upload that stops sending and a stream whose
// client stops reading end after the idle timeout instead of holding a
// handler (and a process subscription) forever.
func TestStuckPeersAreCut(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	c := emulatortest.Start(t, emulator.Options{StreamIdleTimeout: idle})
	sb := c.Create(map[string]any{})
	host := strings.TrimPrefix(c.Srv.SandboxURL(), "http://")
	headers := fmt.Sprintf("E2b-Sandbox-Id: %s\r\nE2b-Sandbox-Port: %s\r\n", sb.SandboxID, emulatortest.EnvdPort)
	if sb.EnvdAccessToken != "" {
		headers += "X-Access-Token: " + sb.EnvdAccessToken + "\r\n"
	}

	// An upload that announces 1 MiB and sends 10 bytes.
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /files?path=%%2Fhome%%2Fuser%%2Fstuck.bin HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/octet-stream\r\nContent-Length: 1048576\r\n\r\n0123456789", host, headers)
	if !closedWithin(conn, 20*idle) {
		t.Fatal("a stalled upload was still open long after the idle timeout")
	}

	// A stream of endless output whose client never reads.
	payload, _ := json.Marshal(map[string]any{"process": map[string]any{"cmd": "/bin/bash", "args": []string{"-c", "yes stuck"}}})
	var frame bytes.Buffer
	frame.WriteByte(0)
	_ = binary.Write(&frame, binary.BigEndian, uint32(len(payload)))
	frame.Write(payload)
	conn2, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	fmt.Fprintf(conn2, "POST /process.Process/Start HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/connect+json\r\nConnect-Protocol-Version: 1\r\nContent-Length: %d\r\n\r\n", host, headers, frame.Len())
	_, _ = conn2.Write(frame.Bytes())
	time.Sleep(10 * idle) // never read: the server's writes block once the connection's buffers are full
	if !closedWithin(conn2, 15*time.Second) {
		t.Fatal("a stream to a client that stopped reading was never cut")
	}
}

// closedWithin reads (and discards) until the peer closes the connection or
// the time runs out.
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64<<10)
	for {
		if _, err := conn.Read(buf); err != nil {

			var ne net.Error
			if errorsAs(err, &ne) && ne.Timeout() {
				return false
			}
			return true
		}
	}
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error) //nolint:errorlint // net.Conn.Read returns the error itself
	if ok {
		*target = ne
	}
	return ok
}

// TestAdminAPIAcceptsOnlyJSONAndItsToken: a web page can send a form or
// text/plain POST to any local port without asking; the admin API refuses
// those, refuses fault statuses it cannot serve, and refuses everyone
// without its token (random unless chosen).
func TestAdminAPIAcceptsOnlyJSONAndItsToken(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	faults := c.Srv.APIURL() + "/_emulator/faults"
	post := func(contentType, body string, headers map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, faults, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := c.HC.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	evil := `{"errorRate":1}`
	auth := map[string]string{"Authorization": "Bearer " + c.Srv.AdminToken()}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"} {
		if st, body := post(ct, evil, auth); st != http.StatusUnsupportedMediaType {
			t.Fatalf("POST with Content-Type %q: %d %s, want 415", ct, st, body)
		}
	}
	if st, data, _ := c.API("GET", "/v2/sandboxes", nil); st != http.StatusOK {
		t.Fatalf("a refused admin request changed the faults: %d %s", st, data)
	}
	for _, bad := range []string{`{"errorRate":1,"statuses":[99]}`, `{"errorRate":1,"statuses":[1000]}`,
		`{"errorRate":1,"statuses":[204]}`, `{"errorRate":2}`, `{"dropRate":-1}`, `{"latency":"-1s"}`} {
		if st, body := post("application/json", bad, auth); st != http.StatusBadRequest {
			t.Fatalf("faults %s: %d %s, want 400", bad, st, body)
		}
	}
	if st, data, _ := c.API("GET", "/v2/sandboxes", nil); st != http.StatusOK {
		t.Fatalf("the emulator must still serve after refused faults: %d %s", st, data)
	}

	guarded := emulatortest.Start(t, emulator.Options{AdminToken: "adm-s3cret"})
	faults = guarded.Srv.APIURL() + "/_emulator/faults"
	for _, auth := range []string{"", "Bearer wrong", "adm-s3cret"} {
		if st, body := post("application/json", `{}`, map[string]string{"Authorization": auth}); st != http.StatusUnauthorized {
			t.Fatalf("admin with Authorization %q: %d %s, want 401", auth, st, body)
		}
	}
	if st, _, _ := guarded.Request("GET", guarded.Srv.APIURL()+"/_emulator/counters", nil, map[string]string{"Authorization": ""}); st != http.StatusUnauthorized {
		t.Fatalf("counters without the token: %d, want 401", st)
	}
	if st, body := post("application/json", `{}`, map[string]string{"Authorization": "Bearer adm-s3cret"}); st != http.StatusNoContent {
		t.Fatalf("admin with the token: %d %s", st, body)
	}
}
