package model

import (
	"sync"
	"testing"

	"decoreg/internal/rng"
)

// RowLosses and VisitLogits may run from several goroutines on one model:
// each gives what it gives alone (they shared the activations: the library's
// Evaluate from several goroutines gave wrong NLLs and panicked,
// helper-122).
func TestRowLossesConcurrent(t *testing.T) {
	for name, cfg := range tinyConfigs() {
		t.Run(name, func(t *testing.T) {
			m, _ := New(cfg, 3)
			r := rng.New(7)
			var batches []*Batch
			var want [][]float64
			for _, B := range []int{3, 40, 7, 300, 1, 90, 12, 600} {
				b := randBatch(m, B, r)
				out := make([]float64, B)
				m.RowLosses(b, cfg.MaskLoss, out)
				batches, want = append(batches, b), append(want, out)
			}
			var wg sync.WaitGroup
			bad := make(chan int, len(batches))
			for g, b := range batches {
				wg.Add(1)
				go func() {
					defer wg.Done()
					out := make([]float64, b.B)
					for range 15 {
						m.RowLosses(b, cfg.MaskLoss, out)
						for i := range out {
							if out[i] != want[g][i] {
								bad <- g
								return
							}
						}
						if cfg.Head == Decoder {
							m.VisitLogits(b, cfg.MaskLoss, func(int, int, []float32, []bool, int) {})
						}
					}
				}()
			}
			wg.Wait()
			close(bad)
			for g := range bad {
				t.Errorf("batch %d (%d rows): losses differ from the same call alone", g, batches[g].B)
			}
		})
	}
}
