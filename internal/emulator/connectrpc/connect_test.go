package connectrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A stream's messages are enveloped frames that ReadEnvelope reads back; End closes it with an
// end-stream frame carrying the error.
func TestStreamFramesRoundTrip(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := NewStreamWriter(rec)
	if err := sw.Send(map[string]string{"msg": "one"}); err != nil {
		t.Fatal(err)
	}
	sw.End(Errorf("not_found", "path %q not found", "/x"))
	r := bytes.NewReader(rec.Body.Bytes())
	flags, payload, err := ReadEnvelope(r)
	if err != nil || flags != 0 || string(payload) != `{"msg":"one"}` {
		t.Fatalf("first frame: %d %s %v", flags, payload, err)
	}
	flags, payload, err = ReadEnvelope(r)
	if err != nil || flags&FlagEndStream == 0 {
		t.Fatalf("end frame: %d %s %v", flags, payload, err)
	}
	var end struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(payload, &end); err != nil || end.Error.Code != "not_found" || end.Error.Message != `path "/x" not found` {
		t.Fatalf("end-stream %s: %v", payload, err)
	}
}

// A unary error answers connect-go's HTTP status for its code, with the Connect error body.
func TestWriteErrorStatus(t *testing.T) {
	for code, status := range map[string]int{"not_found": http.StatusNotFound, "invalid_argument": http.StatusBadRequest} {
		rec := httptest.NewRecorder()
		WriteError(rec, Errorf(code, "why"))
		if rec.Code != status || !bytes.Contains(rec.Body.Bytes(), []byte(`"code":"`+code+`"`)) {
			t.Errorf("%s: %d %s", code, rec.Code, rec.Body)
		}
	}
}
