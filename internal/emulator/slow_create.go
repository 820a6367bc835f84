package emulator

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
)

// serveSlowCreate runs a create that takes delay before the sandbox exists.
// With a gateway timeout, a gateway in front answers 504 once it passes,
// while the create goes on behind it and may still make the sandbox: the
// case in which a client cannot know whether its create took effect.
func (s *Server) serveSlowCreate(w http.ResponseWriter, r *http.Request, delay, gateway time.Duration) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return
	}
	// The create outlives the client's request, as a backend's does.
	ctx := controlplane.DelayCreate(context.WithoutCancel(r.Context()), delay)
	inner := r.Clone(ctx)
	inner.Body = io.NopCloser(bytes.NewReader(body))
	if gateway <= 0 {
		s.cp.ServeHTTP(w, inner)
		return
	}
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.cp.ServeHTTP(rec, inner)
	}()
	t := time.NewTimer(gateway)
	defer t.Stop()
	select {
	case <-done:
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	case <-t.C:
		s.counters.add(func(c *Counters) { c.FaultsInjected++ })
		w.Header().Set(FaultHeader, "injected")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusGatewayTimeout)
		_, _ = io.WriteString(w, "<html><body><h1>504 Gateway Time-out</h1></body></html>\n")
	}
}
