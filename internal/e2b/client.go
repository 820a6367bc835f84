package e2b

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
)

// Config configures a Client. Zero values select the defaults.
type Config struct {
	APIKey         string
	Domain         string        // default DefaultDomain
	APIURL         string        // default "https://api." + Domain; see NormalizeBaseURL
	SandboxURL     string        // optional: base URL for ALL envd traffic (routing by E2b-Sandbox-Id/Port headers)
	Version        string        // provider version; UA = "terraform-provider-e2b/<Version>" + " " + UserAgent
	UserAgent      string        // appended by the caller (framework/terraform versions)
	RequestTimeout time.Duration // per attempt for non-streaming calls; default 60s
	RetryMax       *int          // retries after the first attempt; nil = 4, 0 = none
	RetryWaitMin   time.Duration // default 500ms
	RetryWaitMax   time.Duration // default 10s
	HTTPClient     *http.Client  // optional base transport (tests may wrap RoundTripper)
	Logger         Logger        // optional; gets redacted request/response lines

	// CreateRate states the team's sandbox creates per second (E2B: 1 on
	// Hobby, 5 on Pro): creates are paced to it from the first. 0 = learn
	// it from E2B's refusals (see createPacer).
	CreateRate float64
	// SandboxLimitWait bounds how long a start refused at the team's
	// concurrent-sandbox limit waits for sandboxes this process deletes or
	// pauses; nil = DefaultSandboxLimitWait, 0 = no wait.
	SandboxLimitWait *time.Duration
}

// Logger receives one line per HTTP attempt. Secrets are redacted before
// they reach it.
type Logger interface {
	Log(ctx context.Context, level, msg string, fields map[string]any)
}

// ErrMissingAPIKey is returned (wrapped) by every control-plane call when the
// client was built without an API key.
var ErrMissingAPIKey = errors.New("missing E2B API key: set api_key or E2B_API_KEY")

// DefaultDomain is E2B's domain, used when Config.Domain is empty.
const DefaultDomain = "e2b.app"

const (
	defaultRequestTimeout = 60 * time.Second
	defaultRetryMax       = 4
	defaultRetryWaitMin   = 500 * time.Millisecond
	defaultRetryWaitMax   = 10 * time.Second
	envdPort              = 49983
)

// Client talks to the E2B control plane and, through Envd, to sandboxes.
type Client struct {
	cfg        Config
	retryMax   int
	apiURL     *url.URL
	sandboxURL *url.URL // nil: per-sandbox hosts
	userAgent  string
	control    *retryablehttp.Client
	envd       *retryablehttp.Client
	sandboxes  sandboxCache
	routes     sandboxRoutes // the /v2 sandbox routes the server lacks
	sealState

	limits           *teamLimits // shared by every Client of the process for the team
	sandboxLimitWait time.Duration
}

// New builds a Client. It fails only for malformed URLs; an empty APIKey is
// accepted so that callers can report the missing key lazily.
func New(cfg Config) (*Client, error) {
	if cfg.Domain == "" {
		cfg.Domain = DefaultDomain
	}
	if cfg.APIURL == "" {
		cfg.APIURL = "https://api." + cfg.Domain
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = defaultRequestTimeout
	}
	retryMax := defaultRetryMax
	if cfg.RetryMax != nil {
		retryMax = max(*cfg.RetryMax, 0)
	}
	if cfg.RetryWaitMin <= 0 {
		cfg.RetryWaitMin = defaultRetryWaitMin
	}
	if cfg.RetryWaitMax <= 0 {
		cfg.RetryWaitMax = defaultRetryWaitMax
	}
	if cfg.RetryWaitMax < cfg.RetryWaitMin {
		cfg.RetryWaitMax = cfg.RetryWaitMin
	}
	apiURL, err := parseBaseURL("api_url", cfg.APIURL)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, retryMax: retryMax, apiURL: apiURL, sandboxLimitWait: DefaultSandboxLimitWait}
	if cfg.SandboxLimitWait != nil {
		c.sandboxLimitWait = max(*cfg.SandboxLimitWait, 0)
	}
	c.limits = limitsFor(c.apiURL.String(), cfg.APIKey)
	c.limits.pacer.state(cfg.CreateRate)
	if cfg.SandboxURL != "" {
		if c.sandboxURL, err = parseBaseURL("sandbox_url", cfg.SandboxURL); err != nil {
			return nil, err
		}
	}
	c.userAgent = "terraform-provider-e2b/" + orDefault(cfg.Version, "dev")
	if ua := strings.TrimSpace(cfg.UserAgent); ua != "" {
		c.userAgent += " " + ua
	}
	base := cfg.HTTPClient
	if base == nil {
		base = cleanhttp.DefaultPooledClient()
	}
	c.control = c.newRetryClient(base, false)
	c.envd = c.newRetryClient(base, true)
	return c, nil
}

func parseBaseURL(name, raw string) (*url.URL, error) {
	norm, err := NormalizeBaseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid %s: %w", name, err)
	}
	return url.Parse(norm)
}

// NormalizeBaseURL checks that raw is an absolute http(s) URL without a query
// or fragment and returns it without trailing slashes: the form api_url and
// sandbox_url are used in. Errors quote the URL with its credentials redacted.
func NormalizeBaseURL(raw string) (string, error) {
	shown := RedactURLString(raw)
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("%q is not a URL: %w", shown, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http:// or https:// URL", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("%q must not have a query or fragment", shown)
	}
	return u.String(), nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Domain is the sandbox domain used when a sandbox reports none.
func (c *Client) Domain() string { return c.cfg.Domain }

// APIURL is the control-plane base URL in use.
func (c *Client) APIURL() string { return c.apiURL.String() }
