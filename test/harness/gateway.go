package harness

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// ForwardAndLoseAnswer sends r on to the API at apiURL, which carries it out, and answers w as a
// gateway in front of E2B's API does when it gave up waiting: 504 with an HTML page. The client
// never hears that E2B committed, which is what a test of a lost answer needs.
func ForwardAndLoseAnswer(w http.ResponseWriter, r *http.Request, apiURL string) {
	body, _ := io.ReadAll(r.Body)
	out, _ := http.NewRequestWithContext(context.Background(), r.Method, apiURL+r.URL.RequestURI(), bytes.NewReader(body))
	out.Header = r.Header.Clone()
	if resp, err := http.DefaultClient.Do(out); err == nil {
		_ = resp.Body.Close()
	}
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = io.WriteString(w, "<html><body><h1>504 Gateway Time-out</h1></body></html>\n")
}
