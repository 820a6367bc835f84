package controlplane

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
)

// Request validation.
//
// E2B's API server checks every request against its OpenAPI spec before
// any handler runs: kin-openapi's openapi3filter behind oapi-codegen's gin
// middleware. The emulator does the same against the spec it serves
// (e2bspec.Served), so whatever that spec refuses gets E2B's 400, also for
// fields the handlers do not look at. The handlers keep only the checks
// E2B makes in its own handlers.

// requestValidator holds the spec's router, built once: building it parses
// every path template, matching a request only walks it.
type requestValidator struct {
	router routers.Router
	// legacy is the router of E2B's SDK-side spec (the API server's at
	// e2b-dev/infra 54693ff), which still describes the deprecated
	// access-token operations (POST /templates, GET /teams, ...) that the
	// newest spec dropped. The emulator serves those too.
	legacy routers.Router
}

// newRequestValidator returns the process's validator: the spec is parsed
// and its router built on first use only (every emulator of a test binary
// shares them; matching only reads them).
var newRequestValidator = sync.OnceValues(loadRequestValidator)

func loadRequestValidator() (*requestValidator, error) {
	router, err := loadRouter(e2bspec.Served.Control)
	if err != nil {
		return nil, err
	}
	legacy, err := loadRouter(e2bspec.SDKControl)
	if err != nil {
		return nil, err
	}
	return &requestValidator{router: router, legacy: legacy}, nil
}

// loadRouter parses the named spec and builds its router.
func loadRouter(name string) (routers.Router, error) {
	doc, err := e2bspec.Load("", name)
	if err != nil {
		return nil, err
	}
	// As E2B's server does: no servers, so any host and base path match.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return router, nil
}

// validationOptions are E2B's: every error collected (the answer names the
// first). Authentication is the emulator's own check, made before this one,
// and defaults are left to the handlers, which apply E2B's.
var validationOptions = &openapi3filter.Options{
	MultiError:          true,
	SkipSettingDefaults: true,
	AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
}

// ValidateRequest checks r (path and query parameters, headers, body)
// against the served spec (an operation only the SDK-side spec still
// describes, against that one); on false E2B's 400 is written. A request for
// an operation neither describes passes: the route table decides those. The
// body is read and put back for the handler.
func (s *API) ValidateRequest(w http.ResponseWriter, r *http.Request) bool {
	route, params, err := s.validator.router.FindRoute(r)
	if err != nil {
		// A deprecated operation only the SDK-side spec still describes.
		if route, params, err = s.validator.legacy.FindRoute(r); err != nil {
			return true
		}
	}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: validationOptions}
	if err := openapi3filter.ValidateRequest(r.Context(), in); err != nil {
		writeError(w, http.StatusBadRequest, "validation error: "+validationMessage(err))
		return false
	}
	return true
}

// validationMessage words a validation failure as E2B's server does: the
// first error of the list; for a request error only the first line of
// kin-openapi's text (which goes on with the schema and the value).
func validationMessage(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) && len(me) > 0 {
		err = me[0]
	}
	var re *openapi3filter.RequestError
	if errors.As(err, &re) {
		first, _, _ := strings.Cut(re.Error(), "\n")
		return "error in openapi3filter.RequestError: " + first
	}
	return fmt.Sprintf("error validating request: %v", err)
}
