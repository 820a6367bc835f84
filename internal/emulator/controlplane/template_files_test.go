package controlplane_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// TestTemplateUploadNeedsItsHeaders: with storage that needs headers, the upload
// link names them, and an upload without them is refused as the storage would
// refuse it; nothing is stored until an upload sends them.
func TestTemplateUploadNeedsItsHeaders(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{UploadHeaders: map[string]string{"x-ms-blob-type": "BlockBlob"}})
	b := c.RequestBuild(map[string]any{"name": "upload-headers"})
	link := func() controlplane.TemplateBuildFileUploadJSON {
		st, data, _ := c.API("GET", "/templates/"+b.TemplateID+"/files/hashheaders", nil)
		emulatortest.WantStatus(t, "files link", st, data, http.StatusCreated)
		return emulatortest.Decode[controlplane.TemplateBuildFileUploadJSON](t, data)
	}
	l := link()
	if l.Present || l.URL == nil || len(l.Headers) == 0 {
		t.Fatalf("upload link %+v: want a URL and the headers to send", l)
	}
	archive := emulatortest.ContextArchive(t, map[string]string{"a.txt": "a\n"})
	put := func(headers map[string]string) int {
		req, err := http.NewRequest("PUT", *l.URL, bytes.NewReader(archive))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := c.HC.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if st := put(nil); st != http.StatusBadRequest {
		t.Fatalf("upload without headers: %d, want 400", st)
	}
	if link().Present {
		t.Fatal("a refused upload was stored")
	}
	if st := put(l.Headers); st != http.StatusOK {
		t.Fatalf("upload with headers: %d", st)
	}
	if !link().Present {
		t.Fatal("upload with headers not stored")
	}
}
