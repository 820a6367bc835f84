package e2b

import (
	"fmt"
	"strconv"
)

// CheckVolumeMode checks the spelling of a volume file's mode: E2B reports a file's mode as its
// permission bits, which state records as four octal digits ("0644"), so only that spelling
// plans what a read gives back. Setuid, setgid and sticky bits are refused: the volume-content
// API's stat (as the emulator models it; E2B does not document it, so this is a guess) reports
// permission bits only, so a mode with them would never read back as written. It returns "" or
// what is wrong, naming the spelling to use.
func CheckVolumeMode(s string) string {
	v, err := strconv.ParseUint(s, 8, 32)
	if err != nil || s == "" || s[0] == '+' {
		return `must be an octal mode of four digits, such as "0644"`
	}
	if v > 0o777 {
		return fmt.Sprintf("may hold permission bits only (at most \"0777\"): setuid, setgid and sticky bits are not "+
			"kept by E2B's volume files, so %q would read back as %q", s, fmt.Sprintf("%04o", v&0o777))
	}
	if canonical := fmt.Sprintf("%04o", v); s != canonical {
		return fmt.Sprintf("must be written %q (four octal digits, as E2B reports it and state records it)", canonical)
	}
	return ""
}
