package emulator

import (
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
)

// runSampler samples every running sandbox every envd.SampleInterval.
func (s *Server) runSampler() {
	defer close(s.samplerDone)
	t := time.NewTicker(envd.SampleInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopSampler:
			return
		case now := <-t.C:
			running := s.cp.Sandboxes().RunningMachines()
			s.cp.SampleTeam(now, len(running))
			if len(running) == 0 {
				continue
			}
			procs := sandboxos.ScanProcs(s.isolate)
			for _, sb := range running {
				sb.TakeSampleFrom(procs)
			}
		}
	}
}
