package e2b

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A create of an object E2B keeps (volume, secret, webhook, snapshot) whose
// outcome is unknown (no answer, a gateway's error, the caller's context
// ending) may have made the object. It is settled the way CreateSandbox
// settles a lost sandbox create: the client looks the object up, adopts it
// only when it can prove it is the one this create made (never an object
// that existed before the request), and otherwise fails with what exists.
// How each type proves it is told at its create.

// InterruptedCreateError is returned together with the object when the
// caller's context ended before the create answered but the object was found
// afterwards and proven to be this create's: it exists, so keep it.
type InterruptedCreateError struct {
	Kind, ID string // "volume", "vol_…"
	Err      error  // why the create gave no answer
}

func (e *InterruptedCreateError) Error() string {
	return fmt.Sprintf("%v (interrupted before E2B answered); E2B made %s %s all the same", e.Err, e.Kind, e.ID)
}

func (e *InterruptedCreateError) Unwrap() error { return e.Err }

// UnknownCreateError reports a create that may have taken effect and could
// not be settled: looking for the object failed, or found objects this
// create cannot be told apart from, or the object may still appear.
type UnknownCreateError struct {
	Kind       string
	Err        error    // why the create gave no answer
	LookupErr  error    // why looking for the object failed; nil when the search ran
	MayExist   string   // what may exist, and how to recognise it
	Candidates []string // IDs of objects any of which may be this create's
}

func (e *UnknownCreateError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v; E2B may have made the %s anyway", e.Err, e.Kind)
	switch {
	case len(e.Candidates) > 0:
		fmt.Fprintf(&b, ": %s %s appeared while this create ran and cannot be told apart from what it made",
			plural(len(e.Candidates), e.Kind), strings.Join(e.Candidates, ", "))
	case e.LookupErr != nil:
		fmt.Fprintf(&b, ", and looking for it failed (%v)", e.LookupErr)
	default:
		b.WriteString(", and it was not found yet (E2B may still be making it)")
	}
	if e.MayExist != "" {
		fmt.Fprintf(&b, "; look for %s", e.MayExist)
	}
	return b.String()
}

func (e *UnknownCreateError) Unwrap() error { return e.Err }

// ExistsError reports that the object a create asked for exists and is not
// the one this create made: it existed before the request, or another
// client made it. It is never adopted.
type ExistsError struct {
	Kind, Name, ID string
	Why            string // how the client knows it is not this create's
	Err            error  // E2B's refusal, when E2B refused the create
}

func (e *ExistsError) Error() string {
	id := ""
	if e.ID != "" {
		id = " (" + e.ID + ")"
	}
	msg := fmt.Sprintf("%s %q already exists%s and this create did not make it: %s", e.Kind, e.Name, id, e.Why)
	if e.Err != nil {
		msg += " [" + e.Err.Error() + "]"
	}
	return msg
}

func (e *ExistsError) Unwrap() error { return e.Err }

// IsExists reports an *ExistsError: what the create asked for exists and
// belongs to someone else (import it, or choose another name).
func IsExists(err error) bool {
	var e *ExistsError
	return errors.As(err, &e)
}

func plural(n int, kind string) string {
	if n == 1 {
		return kind
	}
	return kind + "s"
}

// keptCreate is one create of an object E2B keeps, with what settles it.
type keptCreate[T any] struct {
	kind string
	name string // what was asked for, for messages
	post func(ctx context.Context) (*T, error)
	// find looks for the object this create made: it returns it when it is
	// provably this create's, nil when none is (yet), an *ExistsError or
	// *UnknownCreateError when what it found settles the create otherwise,
	// and any other error when looking failed.
	find func(ctx context.Context) (*T, error)
	// taken reports E2B's refusal because the name is taken; holder then
	// names the object that holds it ("" when it cannot be found).
	taken  func(error) bool
	holder func(ctx context.Context) (string, error)
	// resendable: E2B refuses a second object of the name, so a create found
	// nowhere is sent again at once (an earlier one that lands late makes
	// the later one fail as taken, and is then found) instead of after the
	// window in which E2B may still be finishing it.
	resendable bool
	idOf       func(*T) string
	mayExist   string // what may exist when the outcome stays unknown
}

// createKept sends the create and settles an unknown outcome; see keptCreate.
func createKept[T any](ctx context.Context, c *Client, kc keptCreate[T]) (*T, error) {
	lost := false // an attempt's outcome was unknown: an earlier attempt may hold the name
	for attempt := 0; ; attempt++ {
		sent := time.Now()
		obj, err := kc.post(ctx)
		if err == nil {
			return obj, nil
		}
		outcome := createOutcome(ctx, err)
		if outcome == outcomeFailed && kc.taken != nil && kc.taken(err) {
			if !lost {
				return nil, takenBySomeoneElse(ctx, kc, err)
			}
			outcome = outcomeE2BFailed // E2B answered: what holds the name is there to be found
		}
		switch outcome {
		case outcomeFailed:
			return nil, err
		case outcomeNothingMade:
		case outcomeUnknown, outcomeE2BFailed:
			lost = true
			found, lerr := settleKept(ctx, c, kc, sent, outcome == outcomeE2BFailed || kc.resendable)
			var unknown *UnknownCreateError
			switch {
			case found != nil && ctx.Err() != nil:
				return found, &InterruptedCreateError{Kind: kc.kind, ID: kc.idOf(found), Err: err}
			case found != nil:
				return found, nil
			case errors.As(lerr, &unknown):
				unknown.Err = err
				return nil, unknown
			case IsExists(lerr):
				return nil, lerr
			case lerr != nil:
				return nil, &UnknownCreateError{Kind: kc.kind, Err: err, LookupErr: lerr, MayExist: kc.mayExist}
			}
		}
		if ctx.Err() != nil || attempt >= c.retryMax {
			if lost && (ctx.Err() != nil || kc.resendable) {
				// Looked for too briefly to be sure that it will not appear.
				return nil, &UnknownCreateError{Kind: kc.kind, Err: err, MayExist: kc.mayExist}
			}
			return nil, err
		}
		if err := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); err != nil {
			return nil, &UnknownCreateError{Kind: kc.kind, Err: err, MayExist: kc.mayExist}
		}
	}
}

// takenBySomeoneElse is the error for a create that E2B refused at once
// because the name is taken: nothing this client sent made the holder.
func takenBySomeoneElse[T any](ctx context.Context, kc keptCreate[T], refusal error) error {
	id, _ := kc.holder(ctx) // best effort: the refusal stands without the ID
	return &ExistsError{Kind: kc.kind, Name: kc.name, ID: id, Err: refusal,
		Why: "E2B refused the create because the name was already taken"}
}

// settleKept looks for the object with kc.find; see settle. What it finds
// that settles the create otherwise (an *ExistsError, an
// *UnknownCreateError) ends the search.
func settleKept[T any](ctx context.Context, c *Client, kc keptCreate[T], sent time.Time, once bool) (*T, error) {
	return settle(ctx, c, sent, once, kc.find, func(err error) bool { return IsExists(err) || isUnknownCreate(err) })
}

func isUnknownCreate(err error) bool {
	var e *UnknownCreateError
	return errors.As(err, &e)
}
