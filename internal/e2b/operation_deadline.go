package e2b

import (
	"context"
	"time"
)

type operationDeadlineKey struct{}

// WithOperationDeadline tells the client when the whole operation must be over, the search
// for what a call whose answer was lost made included. Without it, that search may go on
// for up to lostCreateLookupTimeout after ctx ended (the object may exist all the same); with
// it, never past end: a caller that promises a timeout gives ctx an earlier deadline, and the
// difference is the time left to settle a lost answer.
func WithOperationDeadline(ctx context.Context, end time.Time) context.Context {
	return context.WithValue(ctx, operationDeadlineKey{}, end)
}

func operationDeadline(ctx context.Context) (time.Time, bool) {
	end, ok := ctx.Value(operationDeadlineKey{}).(time.Time)
	return end, ok
}
