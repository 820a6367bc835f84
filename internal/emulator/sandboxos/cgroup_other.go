//go:build !linux

package sandboxos

import (
	"errors"
	"time"
)

// Cgroups need Linux; elsewhere sandboxes have no limits of their own.
type Cgroups struct{}

type Cgroup struct{}

type Limits struct {
	MemoryMB, CPUCount int
}

func (l Limits) PIDs() int { return max(l.MemoryMB, 128) }

func SetupCgroups(string) (*Cgroups, error) { return nil, errors.New("cgroups need Linux") }

func (c *Cgroups) New(string, Limits) (*Cgroup, error) { return nil, errors.New("cgroups need Linux") }
func (c *Cgroups) Sweep() int                          { return 0 }
func (c *Cgroups) Remove()                             {}
func (g *Cgroup) ProcsFiles() []string                 { return nil }
func (g *Cgroup) Add(int) error                        { return nil }
func (g *Cgroup) Remove()                              {}
func (g *Cgroup) CPUTime() (time.Duration, bool)       { return 0, false }
