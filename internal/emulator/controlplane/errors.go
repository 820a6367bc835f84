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

// decodeBody decodes r's JSON body into req; on false the validator's 400
// is written.
func decodeBody(w http.ResponseWriter, r *http.Request, req any) bool {
	if err := httpjson.Decode(r, req); err != nil {
		validationError(w, err.Error())
		return false
	}
	return true
}

// bodySchemaError words the validator's 400 for a body field that breaks
// the schema.
func bodySchemaError(w http.ResponseWriter, field, problem string) {
	validationError(w, fmt.Sprintf(`request body has an error: doesn't match schema: Error at "/%s": %s`, field, problem))
}

// missingProperty answers the validator's 400 for an absent required property.
func missingProperty(w http.ResponseWriter, name string) {
	bodySchemaError(w, name, fmt.Sprintf("property %q is missing", name))
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
