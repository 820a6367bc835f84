package controlplane

import (
	"context"
	"net/http"
	"time"
)

// What the emulator's fault injection may ask of a create, carried by the
// request's context.

type (
	dropAfterKey   struct{}
	createDelayKey struct{}
)

// DropAnswer marks a create to take effect and then drop its connection
// instead of answering.
func DropAnswer(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), dropAfterKey{}, true))
}

// DelayCreate makes a create wait d before it makes the sandbox.
func DelayCreate(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, createDelayKey{}, d)
}

// IsCreate reports whether a route key is a sandbox create's.
func IsCreate(pattern string) bool { return pattern == routeCreate || pattern == routeCreateV2 }

// waitCreateDelay holds a create for the delay its request carries.
func waitCreateDelay(r *http.Request) {
	if d, _ := r.Context().Value(createDelayKey{}).(time.Duration); d > 0 {
		time.Sleep(d)
	}
}
