package sandboxes

import (
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// fixture is a registry whose sandboxes are real machines in the shared
// layout (directories under a temporary folder), with its callbacks recorded.
type fixture struct {
	t        *testing.T
	reg      *Registry
	dir      string
	settings *envd.Settings
	mu       sync.Mutex
	events   []string
	expired  chan bool
	cap      int
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, dir: t.TempDir(), expired: make(chan bool, 10)}
	f.settings = &envd.Settings{Logf: t.Logf}
	f.reg = New(Callbacks{
		Event: func(rec Record, typ string, _ map[string]any) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.events = append(f.events, rec.ID+" "+typ)
		},
		Admit: func(running int) string {
			if f.cap > 0 && running >= f.cap {
				return "over the cap"
			}
			return ""
		},
		Expired: func(m *envd.Machine, killed bool) {
			if killed {
				m.Destroy()
			}
			f.expired <- killed
		},
		MaxLifetime: time.Hour,
	})
	t.Cleanup(func() {
		for _, m := range f.reg.Close() {
			m.Destroy()
		}
	})
	return f
}

// create adds a running sandbox that ends after ttl.
func (f *fixture) create(ttl time.Duration, autoPause bool) Record {
	f.t.Helper()
	rec, _, err := f.reg.Create(func(id string, running int) (Record, *envd.Machine, error) {
		if msg := f.reg.callbacks.Admit(running); msg != "" {
			return Record{}, nil, LimitError{msg}
		}
		m, err := envd.Start(f.settings, envd.Config{ID: id, Dir: filepath.Join(f.dir, id)})
		if err != nil {
			return Record{}, nil, err
		}
		now := time.Now().UTC()
		return Record{
			Template: store.Template{ID: "tmpl"}, StartedAt: now, EndAt: now.Add(ttl), ResumeTimeout: ttl,
			AutoPause: autoPause, AutoPauseKeeps: true, Metadata: map[string]string{"k": "v"},
		}, m, nil
	}, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return rec
}

func (f *fixture) eventLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.events...)
}

func TestRecordsAreCopies(t *testing.T) {
	f := newFixture(t)
	rec := f.create(time.Hour, false)
	rec.Metadata["k"] = "changed"
	rec.Network.AllowOut = append(rec.Network.AllowOut, "example.com")
	got, _, _ := f.reg.Get(rec.ID)
	if got.Metadata["k"] != "v" || len(got.Network.AllowOut) != 0 {
		t.Fatalf("a caller's copy changed the registry's record: %+v", got)
	}
	if list := f.reg.List(false); len(list) != 1 || list[0].State != Running || list[0].ExecutionID == "" {
		t.Fatalf("list %+v", list)
	}
}

func TestLifecycleEventsKeepTheirOrder(t *testing.T) {
	f := newFixture(t)
	rec := f.create(time.Hour, false)
	if _, err := f.reg.Pause(rec.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Pause(rec.ID, true); !errors.Is(err, ErrAlreadyPaused) {
		t.Fatalf("second pause: %v, want ErrAlreadyPaused", err)
	}
	if _, _, resumed, err := f.reg.Connect(rec.ID, nil, time.Hour, true); err != nil || !resumed {
		t.Fatalf("connect: resumed %v, %v", resumed, err)
	}
	if _, err := f.reg.Kill(rec.ID); err != nil {
		t.Fatal(err)
	}
	want := []string{rec.ID + " " + EvCreated, rec.ID + " " + EvPaused, rec.ID + " " + EvResumed, rec.ID + " " + EvKilled}
	if got := f.eventLog(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if _, err := f.reg.Kill(rec.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second kill: %v, want ErrNotFound", err)
	}
}

func TestPausedSandboxesHoldNoPlaceUnderTheCap(t *testing.T) {
	f := newFixture(t)
	f.cap = 1
	a := f.create(time.Hour, false)
	if _, _, err := f.reg.Create(func(_ string, running int) (Record, *envd.Machine, error) {
		return Record{}, nil, LimitError{f.reg.callbacks.Admit(running)}
	}, nil); !errors.As(err, new(LimitError)) {
		t.Fatalf("create over the cap: %v", err)
	}
	if _, err := f.reg.Pause(a.ID, true); err != nil {
		t.Fatal(err)
	}
	b := f.create(time.Hour, false) // a paused sandbox holds no place
	if _, _, _, err := f.reg.Connect(a.ID, nil, time.Hour, true); !errors.As(err, new(LimitError)) {
		t.Fatalf("resume over the cap: %v, want a LimitError", err)
	}
	if got, _, _ := f.reg.Get(a.ID); got.State != Paused {
		t.Fatalf("a refused resume changed the state to %s", got.State)
	}
	if _, err := f.reg.Kill(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, resumed, err := f.reg.Connect(a.ID, nil, time.Hour, true); err != nil || !resumed {
		t.Fatalf("resume with room: resumed %v, %v", resumed, err)
	}
}

func TestTimeoutKillsOrPauses(t *testing.T) {
	f := newFixture(t)
	killed := f.create(10*time.Millisecond, false)
	if !<-f.expired {
		t.Fatal("a sandbox without autoPause was paused at its timeout")
	}
	if _, _, ok := f.reg.Get(killed.ID); ok {
		t.Fatal("a killed sandbox is still listed")
	}
	paused := f.create(10*time.Millisecond, true)
	if <-f.expired {
		t.Fatal("a sandbox with autoPause was killed at its timeout")
	}
	if got, _, _ := f.reg.Get(paused.ID); got.State != Paused || !got.PausedByMemory {
		t.Fatalf("after its timeout: %+v", got)
	}
}

func TestRefreshNeverShortensAndSetTimeoutIsCapped(t *testing.T) {
	f := newFixture(t)
	rec := f.create(time.Hour, false)
	if err := f.reg.Refresh(rec.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := f.reg.Get(rec.ID); !got.EndAt.Equal(rec.EndAt) {
		t.Fatalf("a refresh shorter than what is left moved the end from %v to %v", rec.EndAt, got.EndAt)
	}
	end, _, err := f.reg.SetTimeout(rec.ID, 48*time.Hour, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := rec.StartedAt.Add(time.Hour); !end.Equal(want) {
		t.Fatalf("timeout beyond the maximum lifetime ends at %v, want %v", end, want)
	}
}

func TestDeletesWaitForNoUsers(t *testing.T) {
	f := newFixture(t)
	rec := f.create(time.Hour, false)
	ran := false
	if st := f.reg.IfTemplateUnused("tmpl", func() { ran = true }); st != Running || ran {
		t.Fatalf("template in use: state %q, ran %v", st, ran)
	}
	if st := f.reg.IfTemplateUnused("other", func() { ran = true }); st != "" || !ran {
		t.Fatalf("unused template: state %q, ran %v", st, ran)
	}
	if _, err := f.reg.Kill(rec.ID); err != nil {
		t.Fatal(err)
	}
	ran = false
	if users := f.reg.IfVolumeUnused("vol", func() { ran = true }); users != nil || !ran {
		t.Fatalf("unused volume: users %v, ran %v", users, ran)
	}
}

func TestCloseRefusesWhatComesAfter(t *testing.T) {
	f := newFixture(t)
	f.create(time.Hour, false)
	machines := f.reg.Close()
	for _, m := range machines {
		m.Destroy()
	}
	if len(machines) != 1 || f.reg.Count() != 0 {
		t.Fatalf("close returned %d machines, %d left", len(machines), f.reg.Count())
	}
	if _, _, err := f.reg.Create(func(string, int) (Record, *envd.Machine, error) {
		t.Fatal("a create ran after close")
		return Record{}, nil, nil
	}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("create after close: %v", err)
	}
	if f.reg.IfOpen(func() { t.Fatal("ran after close") }) {
		t.Fatal("IfOpen after close")
	}
}
