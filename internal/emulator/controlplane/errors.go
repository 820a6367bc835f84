package controlplane

import (
	"fmt"
	"net/http"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

func writeError(w http.ResponseWriter, status int, msg string) { httpjson.Error(w, status, msg) }

func writeErrorf(w http.ResponseWriter, status int, format string, args ...any) {
	httpjson.Errorf(w, status, format, args...)
}

// validationError words a 400 like E2B's OpenAPI request validator does.
func validationError(w http.ResponseWriter, detail string) {
	writeError(w, http.StatusBadRequest, "validation error: error in openapi3filter.RequestError: "+detail)
}

// apiError is a refusal with the status and message E2B answers it with.
type apiError struct {
	status int
	msg    string
}

func (e apiError) Error() string { return e.msg }

func refuse(status int, format string, args ...any) error {
	return apiError{status, fmt.Sprintf(format, args...)}
}
