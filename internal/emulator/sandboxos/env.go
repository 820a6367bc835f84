package sandboxos

import (
	"fmt"
	"strings"
)

// CheckEnv refuses what no process environment can hold: a NUL byte
// anywhere, an empty name or a name with "=".
func CheckEnv(envs map[string]string) string {
	for k, v := range envs {
		switch {
		case strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0):
			return fmt.Sprintf("envVars: %q or its value contains a NUL byte", k)
		case k == "" || strings.ContainsRune(k, '='):
			return fmt.Sprintf("envVars: %q is not a variable name", k)
		}
	}
	return ""
}
