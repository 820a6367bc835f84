package e2b

import (
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// E2B caps how long a sandbox may run at once by the team's plan, and says so only when a
// create, connect or timeout change asks for more: a 400 "Timeout cannot be greater than N
// hours". Its API has no call that reports the cap beforehand (GET /teams lists teams without
// their limits), so a client learns it from that answer.
var timeoutLimitRE = regexp.MustCompile(`Timeout cannot be greater than (\d+) hours?`)

// PlanTimeoutLimits are E2B's published caps on one run of a sandbox, by plan.
const PlanTimeoutLimits = "E2B's Hobby plan allows 1 hour, its Pro plan 24 hours"

// TimeoutAboveLimit reports E2B's refusal of a timeout above the team's plan limit, with the
// limit it names.
func TimeoutAboveLimit(err error) (limit time.Duration, ok bool) {
	e, isAPI := asAPIError(err)
	if !isAPI || e.StatusCode != http.StatusBadRequest {
		return 0, false
	}
	m := timeoutLimitRE.FindStringSubmatch(e.Message)
	if m == nil {
		return 0, false
	}
	hours, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		return 0, false
	}
	return time.Duration(hours) * time.Hour, true
}
