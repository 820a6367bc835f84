package provider

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// importedContent is how an import fills in a small text file: as `content`,
// unless the text is a JSON object or array that configuration generation
// (`terraform query`, `plan -generate-config-out`, on Terraform and OpenTofu)
// would write as jsonencode(...), which drops whitespace and a final newline
// and sorts keys: the generated configuration would then rewrite the file.
// Such a file comes back as `content_base64`, which generation keeps byte for
// byte.
func importedContent(text string) (content, contentBase64 types.String) {
	if jsonencodeRewrites(text) {
		return types.StringNull(), types.StringValue(base64.StdEncoding.EncodeToString([]byte(text)))
	}
	return types.StringValue(text), types.StringNull()
}

// jsonencodeRewrites reports whether text is a JSON object or array whose
// jsonencode form differs from it. jsonencode writes compact JSON with
// sorted keys and Go's string escaping, as json.Marshal does; numbers go
// through float64, so one jsonencode would spell differently differs here too.
func jsonencodeRewrites(text string) bool {
	b := bytes.TrimSpace([]byte(text))
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') || !json.Valid(b) {
		return false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return true
	}
	out, err := json.Marshal(v)
	return err != nil || string(out) != text
}
