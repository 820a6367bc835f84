package e2b

import (
	"net/http"
	"strings"
	"sync/atomic"
)

// E2B's spec marks v1 create (POST /sandboxes), connect and fork deprecated
// for their /v2 routes, and its SDKs use v2 (create and connect from the JS
// SDK 2.51.0). The client sends v2 first. A server that answers a v2 route
// with a 404 that is no answer about the sandbox or template asked for (an
// older self-hosted E2B, which does not know the route) gets the same call on
// v1, once, and the client remembers it for that route for its life. Such a
// 404 comes from E2B's request validator before anything is done, so sending
// the call again cannot make anything twice.

// sandboxRoute is one of the operations E2B moved to /v2.
type sandboxRoute int

const (
	routeCreate sandboxRoute = iota
	routeConnect
	routeFork
	sandboxRouteCount
)

func (r sandboxRoute) v1Path(id string) string {
	switch r {
	case routeConnect:
		return "/sandboxes/" + pathSeg(id) + "/connect"
	case routeFork:
		return "/sandboxes/" + pathSeg(id) + "/fork"
	}
	return "/sandboxes"
}

// sandboxRoutes remembers the routes whose v2 the server does not serve.
type sandboxRoutes struct {
	v1Only [sandboxRouteCount]atomic.Bool
}

// useV2 reports whether route is still sent through /v2.
func (c *Client) useV2(route sandboxRoute) bool { return !c.routes.v1Only[route].Load() }

// pathFor is route's path: v2 unless v2 was found missing (or v2 is false).
func (c *Client) pathFor(route sandboxRoute, id string, v2 bool) string {
	if v2 {
		return "/v2" + route.v1Path(id)
	}
	return route.v1Path(id)
}

// fallBackOnRouteMiss reports whether err is a server's answer that it does
// not know route's v2; it then remembers to send route through v1.
func (c *Client) fallBackOnRouteMiss(route sandboxRoute, err error) bool {
	if !isRouteMiss(err) {
		return false
	}
	c.routes.v1Only[route].Store(true)
	return true
}

// isRouteMiss reports a 404 that is not about what was asked for: E2B's
// request validator's "no matching operation" (or "method not allowed", a
// path it knows for another method), or an answer not shaped like E2B's.
func isRouteMiss(err error) bool {
	e, ok := asAPIError(err)
	if !ok || e.StatusCode != http.StatusNotFound || e.notFound {
		return false
	}
	return e.shape != shapeE2B || strings.HasPrefix(e.Message, "validation error")
}
