//go:build unix

package registry

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// BenchmarkStoreCeiling measures the floor under provisioning a fleet of
// n devices and installations in a data folder and under a restart's
// load: encoding every entity as the registry keeps it, in its order
// (encode_cpu_s),
// writing them all into a new registry.db in one transaction, synced
// (write_s, write_cpu_s), reading them back (read_s, read_cpu_s) and
// decoding them into a world with every reference checked
// (decode_cpu_s). Each is the process's CPU (or wall) time of that part
// alone.
func BenchmarkStoreCeiling(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("devices=%dk", n/1000), func(b *testing.B) {
			r, _ := fleet(b, n)
			for b.Loop() {
				runtime.GC()
				c0 := processCPU()
				var ents []Entity
				for _, rf := range r.st.refs() {
					doc, err := r.st.doc(rf)
					if err != nil {
						b.Fatal(err)
					}
					ents = append(ents, Entity{Kind: rf.kind, ID: rf.id, Doc: doc})
				}
				slices.SortFunc(ents, func(a, b Entity) int { // as saveLocked does
					return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
				})
				encode := processCPU() - c0

				d, err := datadir.Open(filepath.Join(b.TempDir(), "data"))
				if err != nil {
					b.Fatal(err)
				}
				st, err := OpenStore(d)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				c0, t0 := processCPU(), time.Now()
				if err := st.Save(context.Background(), ents); err != nil {
					b.Fatal(err)
				}
				writeCPU, write := processCPU()-c0, time.Since(t0)
				runtime.GC()
				c0, t0 = processCPU(), time.Now()
				kept, err := st.Load()
				if err != nil {
					b.Fatal(err)
				}
				readCPU, read := processCPU()-c0, time.Since(t0)
				runtime.GC()
				c0 = processCPU()
				w := newState(r.cfg)
				if err := w.load(kept); err != nil {
					b.Fatal(err)
				}
				decode := processCPU() - c0
				if len(w.installs) != n {
					b.Fatalf("%d installations read back, want %d", len(w.installs), n)
				}
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(encode.Seconds(), "encode_cpu_s")
				b.ReportMetric(write.Seconds(), "write_s")
				b.ReportMetric(writeCPU.Seconds(), "write_cpu_s")
				b.ReportMetric(read.Seconds(), "read_s")
				b.ReportMetric(readCPU.Seconds(), "read_cpu_s")
				b.ReportMetric(decode.Seconds(), "decode_cpu_s")
			}
		})
	}
}
