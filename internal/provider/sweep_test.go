package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// Sweepers delete what acceptance tests left in a team when a run was killed half-way: every
// object an acceptance test creates carries a mark, and only marked objects are deleted.
//   - sandboxes: the metadata key testAccSweepKey, which the provider block of a live run adds
//     through default_metadata (testAccProviderBlockWith);
//   - snapshots: those of a marked sandbox, and named ones whose name starts with testAccPrefix;
//   - templates, volumes, secrets and webhooks: a name that starts with testAccPrefix
//     (testAccName makes one);
//   - template tags: a tag that starts with testAccPrefix, on a template without the mark.
//
// `make sweep` (scripts/sweep.sh) runs them against the team of E2B_API_KEY:
//
//	go test ./internal/provider -run '^$' -sweep=e2b
//
// E2B has no regions a sweeper could go through one by one: the -sweep value only names the run.

const (
	// testAccPrefix starts the name of everything an acceptance test names.
	testAccPrefix = "tf-acc-test-"
	// testAccSweepKey is the metadata key (value "true") of every sandbox a live test run creates.
	testAccSweepKey = "tf-acc-test"
)

// testAccName is a name for an object a test creates: the sweep prefix, the kind and a random
// number, in lower case, which every E2B name allows.
func testAccName(kind string) string {
	return acctest.RandomWithPrefix(testAccPrefix + kind)
}

// TestMain runs the sweepers when -sweep is given, the tests otherwise.
func TestMain(m *testing.M) {
	resource.TestMain(m)
}

func init() {
	// Dependencies run first: a sandbox's snapshots are found through the sandbox, and a volume
	// or template in use by a sandbox cannot be deleted.
	resource.AddTestSweepers("e2b_snapshot", &resource.Sweeper{Name: "e2b_snapshot", F: sweepSnapshots})
	resource.AddTestSweepers("e2b_sandbox", &resource.Sweeper{Name: "e2b_sandbox", F: sweepSandboxes,
		Dependencies: []string{"e2b_snapshot"}})
	resource.AddTestSweepers("e2b_template_tag", &resource.Sweeper{Name: "e2b_template_tag", F: sweepTemplateTags,
		Dependencies: []string{"e2b_sandbox"}})
	resource.AddTestSweepers("e2b_template", &resource.Sweeper{Name: "e2b_template", F: sweepTemplates,
		Dependencies: []string{"e2b_sandbox", "e2b_snapshot", "e2b_template_tag"}})
	resource.AddTestSweepers("e2b_volume", &resource.Sweeper{Name: "e2b_volume", F: sweepVolumes,
		Dependencies: []string{"e2b_sandbox"}})
	resource.AddTestSweepers("e2b_secret", &resource.Sweeper{Name: "e2b_secret", F: sweepSecrets,
		Dependencies: []string{"e2b_sandbox"}})
	resource.AddTestSweepers("e2b_webhook", &resource.Sweeper{Name: "e2b_webhook", F: sweepWebhooks})
}

// sweepTimeout bounds one sweeper.
const sweepTimeout = 10 * time.Minute

// sweepClient is a client for the team of E2B_API_KEY, at E2B_DOMAIN, E2B_API_URL and
// E2B_SANDBOX_URL when they are set, as the provider reads them.
func sweepClient() (*e2b.Client, context.Context, context.CancelFunc, error) {
	key := os.Getenv(envAPIKey)
	if key == "" {
		return nil, nil, nil, fmt.Errorf("the sweepers delete what acceptance tests left in the team of %s; it is not set", envAPIKey)
	}
	c, err := e2b.New(e2b.Config{
		APIKey: key, Domain: os.Getenv(envDomain), APIURL: os.Getenv(envAPIURL), SandboxURL: os.Getenv(envSandboxURL),
		Version: "sweep",
	})
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
	return c, ctx, cancel, nil
}

// sweepNamed: a name (of a template or snapshot, "namespace/name:tag" or less) starts with the prefix.
func sweepNamed(name string) bool {
	name, _, _ = strings.Cut(name, ":")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return strings.HasPrefix(name, testAccPrefix)
}

// swept prints what a sweeper deleted (`make sweep` shows it), ignoring what is already gone.
func swept(kind, id, name string, err error) error {
	switch {
	case err == nil && (name == "" || name == id):
		fmt.Printf("deleted %s %s\n", kind, id)
	case err == nil:
		fmt.Printf("deleted %s %s (%s)\n", kind, id, name)
	case e2b.IsNotFound(err):
	default:
		return fmt.Errorf("delete %s %s %s: %w", kind, id, name, err)
	}
	return nil
}

func markedSandboxes(c *e2b.Client, ctx context.Context) ([]e2b.ListedSandbox, error) {
	return c.ListSandboxes(ctx, e2b.ListSandboxesParams{
		States:   []string{e2b.SandboxStateRunning, e2b.SandboxStatePaused},
		Metadata: map[string]string{testAccSweepKey: "true"},
	})
}

func sweepSandboxes(string) error {
	return sweepObjects("sandbox", markedSandboxes, func(b e2b.ListedSandbox) (string, string, bool) {
		return b.SandboxID, "", b.Metadata[testAccSweepKey] == "true" // never trust a filter with a kill
	}, (*e2b.Client).KillSandbox)
}

func sweepSnapshots(string) error {
	c, ctx, cancel, err := sweepClient()
	if err != nil {
		return err
	}
	defer cancel()
	boxes, err := markedSandboxes(c, ctx)
	if err != nil {
		return err
	}
	var doomed []e2b.SnapshotInfo
	for _, b := range boxes {
		snaps, err := c.ListSnapshots(ctx, e2b.ListSnapshotsParams{SandboxID: b.SandboxID})
		if err != nil {
			return err
		}
		doomed = append(doomed, snaps...)
	}
	all, err := c.ListSnapshots(ctx, e2b.ListSnapshotsParams{})
	if err != nil {
		return err
	}
	for _, s := range all {
		if slices.ContainsFunc(s.Names, sweepNamed) && !slices.ContainsFunc(doomed, func(d e2b.SnapshotInfo) bool { return d.SnapshotID == s.SnapshotID }) {
			doomed = append(doomed, s)
		}
	}
	var errs []error
	for _, s := range doomed {
		if err := swept("snapshot", s.SnapshotID, strings.Join(s.Names, ","), c.DeleteSnapshot(ctx, s.SnapshotID)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func sweepTemplates(string) error {
	return sweepObjects("template", (*e2b.Client).ListTemplates, func(t e2b.Template) (string, string, bool) {
		return t.TemplateID, strings.Join(t.Names, ","), slices.ContainsFunc(append(slices.Clone(t.Names), t.Aliases...), sweepNamed)
	}, (*e2b.Client).DeleteTemplate)
}

// sweepTemplateTags removes marked tags from templates that are not marked themselves (those go
// whole, with their tags, in sweepTemplates).
func sweepTemplateTags(string) error {
	c, ctx, cancel, err := sweepClient()
	if err != nil {
		return err
	}
	defer cancel()
	templates, err := c.ListTemplates(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range templates {
		names := append(slices.Clone(t.Names), t.Aliases...)
		if len(names) == 0 || slices.ContainsFunc(names, sweepNamed) {
			continue
		}
		tags, err := c.ListTemplateTags(ctx, t.TemplateID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name, _, _ := strings.Cut(names[0], ":")
		for _, tag := range tags {
			if !strings.HasPrefix(tag.Tag, testAccPrefix) {
				continue
			}
			if err := swept("template tag", name+":"+tag.Tag, "", c.RemoveTemplateTags(ctx, name, []string{tag.Tag})); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func sweepVolumes(string) error {
	return sweepObjects("volume", (*e2b.Client).ListVolumes, func(v e2b.Volume) (string, string, bool) {
		return v.VolumeID, v.Name, strings.HasPrefix(v.Name, testAccPrefix)
	}, (*e2b.Client).DeleteVolume)
}

func sweepSecrets(string) error {
	return sweepObjects("secret", (*e2b.Client).ListSecrets, func(s e2b.Secret) (string, string, bool) {
		return s.SecretID, s.Name, strings.HasPrefix(s.Name, testAccPrefix)
	}, (*e2b.Client).DeleteSecret)
}

func sweepWebhooks(string) error {
	return sweepObjects("webhook", (*e2b.Client).ListWebhooks, func(h e2b.Webhook) (string, string, bool) {
		return h.WebhookID, h.Name, strings.HasPrefix(h.Name, testAccPrefix)
	}, (*e2b.Client).DeleteWebhook)
}

// sweepObjects deletes the objects of one kind that list returns and marked says a test run
// made, reporting each by the ID and name marked gives.
func sweepObjects[T any](kind string, list func(*e2b.Client, context.Context) ([]T, error),
	marked func(T) (id, name string, ok bool), remove func(*e2b.Client, context.Context, string) error) error {
	c, ctx, cancel, err := sweepClient()
	if err != nil {
		return err
	}
	defer cancel()
	objects, err := list(c, ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range objects {
		id, name, ok := marked(o)
		if !ok {
			continue
		}
		if err := swept(kind, id, name, remove(c, ctx, id)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
