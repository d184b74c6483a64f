package decoreg

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"testing"

	"decoreg/dist"
	"decoreg/metrics"
)

// TestPredictRowsInParallel: PredictFlat summarises rows on several
// goroutines, each row's decoder steps on one core. The answers must be
// those of one goroutine with the model's own threads per step
// (Token.Threads set, which keeps the loop sequential), bit for bit, for
// every head and every output.
func TestPredictRowsInParallel(t *testing.T) {
	xs := make([]float64, 37)
	for i := range xs {
		xs[i] = -2 + 4*float64(i)/float64(len(xs)-1)
	}
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			cfg := hc.cfg
			cfg.Threads = 2
			m := fit(t, cfg, true)
			all := PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles, Levels: []float64{0.05, 0.5, 0.9}}
			par, err := m.PredictFlat(context.Background(), xs, len(xs), all)
			if err != nil {
				t.Fatal(err)
			}
			all.Token.Threads = 2 // sequential rows, two threads per step
			seq, err := m.PredictFlat(context.Background(), xs, len(xs), all)
			if err != nil {
				t.Fatal(err)
			}
			same := func(what string, a, b []float64) {
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
						t.Fatalf("%s of row %d: %v in parallel, %v sequentially", what, i, a[i], b[i])
					}
				}
			}
			same("mean", par.Mean, seq.Mean)
			same("median", par.Median, seq.Median)
			same("mode", par.Mode, seq.Mode)
			for j := range par.Quantiles {
				same("quantile", par.Quantiles[j], seq.Quantiles[j])
			}
		})
	}
}

func TestTokenThreadsChecked(t *testing.T) {
	m := fit(t, headCases[0].cfg, false)
	for _, n := range []int{-1, MaxThreads + 1} {
		_, err := m.PredictFlat(context.Background(), []float64{0}, 1, PredictOptions{Token: dist.TokenOptions{Threads: n}})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Token.Threads" {
			t.Errorf("Threads %d: %v, want a ConfigError on Token.Threads", n, err)
		}
	}
}

// TestEachRow: every row once, on any number of workers; a panic in one
// row reaches the caller.
func TestEachRow(t *testing.T) {
	for _, w := range []int{0, 1, 2, 7, 100} {
		for _, rows := range []int{0, 1, 5, 64} {
			seen := make([]int32, rows)
			eachRow(w, rows, func(i int) { seen[i]++ })
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("workers %d rows %d: row %d done %d times", w, rows, i, c)
				}
			}
		}
	}
	defer func() {
		if r := recover(); r != "row 3" {
			t.Errorf("recovered %v, want the row's panic", r)
		}
	}()
	eachRow(2, 10, func(i int) {
		if i == 3 {
			panic("row 3")
		}
	})
}

// TestPreparedEqualsAlone: PredictFlat's answers (rows prepared in groups
// by dist.Prepare, decoder steps shared) are those of each row's
// distribution computed alone, method by method, bit for bit, for every
// head; and Prepare called on shared distributions from several
// goroutines while others call their methods gives the same answers.
func TestPreparedEqualsAlone(t *testing.T) {
	xs := make([]float64, 21)
	for i := range xs {
		xs[i] = -2 + 4*float64(i)/float64(len(xs)-1)
	}
	levels := []float64{0.05, 0.5, 0.9}
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			m := fit(t, hc.cfg, true)
			p, err := m.PredictFlat(context.Background(), xs, len(xs), PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles, Levels: levels})
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, i int, got, want float64) {
				t.Helper()
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("%s of row %d: %v, alone %v", what, i, got, want)
				}
			}
			alone, err := m.Dists(context.Background(), xs, len(xs), dist.TokenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range alone {
				check("mean", i, p.Mean[i], d.Mean())
				check("median", i, p.Median[i], d.Median())
				check("mode", i, p.Mode[i], d.Mode())
				for j, q := range dist.Quantiles(d, levels) {
					check("quantile", i, p.Quantiles[j][i], q)
				}
			}
			// Concurrently: four goroutines prepare overlapping groups of
			// shared distributions while four others ask them directly.
			shared, err := m.Dists(context.Background(), xs, len(xs), dist.TokenOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			for w := range 8 {
				go func() {
					defer func() { done <- struct{}{} }()
					for i := range shared {
						k := (i + 5*w) % len(shared)
						if w%2 == 0 {
							hi := min(k+6, len(shared))
							var reqs []dist.PrepareRequest
							for _, d := range shared[k:hi] {
								reqs = append(reqs, dist.PrepareRequest{Dist: d, Mean: true, Levels: levels, Mode: true})
							}
							dist.Prepare(reqs)
						} else {
							shared[k].Mean()
							dist.Quantiles(shared[k], levels)
							shared[k].Mode()
						}
					}
				}()
			}
			for range 8 {
				<-done
			}
			for i, d := range shared {
				check("shared mean", i, d.Mean(), p.Mean[i])
				check("shared mode", i, d.Mode(), p.Mode[i])
				for j, q := range dist.Quantiles(d, levels) {
					check("shared quantile", i, q, p.Quantiles[j][i])
				}
			}
		})
	}
}

// TestPredictNoRows: zero rows give an empty prediction, not a panic.
func TestPredictNoRows(t *testing.T) {
	for _, hc := range headCases {
		m := fit(t, hc.cfg, false)
		p, err := m.PredictFlat(context.Background(), nil, 0, PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles})
		if err != nil || len(p.Mean) != 0 {
			t.Errorf("%s: PredictFlat of no rows: %v, %v", hc.name, p, err)
		}
		if _, err := m.Predict(context.Background(), [][]float64{}, PredictOptions{}); err != nil {
			t.Errorf("%s: Predict of no rows: %v", hc.name, err)
		}
	}
}

// TestEvaluateConcurrent: Evaluate and FitTemperature may be called from
// several goroutines on one model and on models sharing its weights; each
// answer is the one a single call gives (they shared the network's
// scoring buffers: wrong NLLs and panics, helper-122).
func TestEvaluateConcurrent(t *testing.T) {
	x, y := toyData(400, 1)
	for _, hc := range headCases {
		if hc.name != "decoder-normalized" && hc.name != "riemann" {
			continue // (internal/model's TestRowLossesConcurrent: every head)
		}
		t.Run(hc.name, func(t *testing.T) {
			m := fit(t, hc.cfg, true)
			hot, err := m.WithTemperature(1.3) // shares m's weights
			if err != nil {
				t.Fatal(err)
			}
			models := []*Model{m, hot}
			sizes := []int{7, 30, 61, 150, 9, 100, 44, 120}
			want := make([][2]float64, len(sizes))
			for g, n := range sizes {
				e, err := models[g%2].Evaluate(context.Background(), x[:n], n, y[:n], "")
				if err != nil {
					t.Fatal(err)
				}
				want[g] = [2]float64{e.NLL, e.NLLToken}
			}
			var wg sync.WaitGroup
			errs := make(chan string, 100)
			for g, n := range sizes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range 4 {
						e, err := models[g%2].Evaluate(context.Background(), x[:n], n, y[:n], "")
						if err != nil {
							errs <- err.Error()
							return
						}
						if got := [2]float64{e.NLL, e.NLLToken}; got != want[g] && !(math.IsNaN(got[1]) && math.IsNaN(want[g][1]) && got[0] == want[g][0]) {
							errs <- fmt.Sprintf("%d rows: NLL, token CE %v, alone %v", n, got, want[g])
							return
						}
						if g == 0 && r == 0 {
							if _, err := m.FitTemperature(context.Background(), x[:100], 100, y[:100], ""); err != nil {
								errs <- err.Error()
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
}

// The exported lists are copies for reading: changing them changes nothing
// the package does (DefaultLevels[0] = 7 made every Predict without Levels
// fail, blaming a field the caller never set, helper-122).
func TestExportedListsNotRead(t *testing.T) {
	m := fit(t, small(HeadRiemann, ""), false)
	want, err := m.PredictFlat(context.Background(), []float64{0.3}, 1, PredictOptions{Outputs: OutQuantiles})
	if err != nil {
		t.Fatal(err)
	}
	x, y := toyData(60, 1)
	cal, err := m.Calibration(context.Background(), x, 60, y)
	if err != nil {
		t.Fatal(err)
	}
	saved := [][]float64{slices.Clone(DefaultLevels), slices.Clone(metrics.CentralLevels), slices.Clone(metrics.PITLevels)}
	savedObj := slices.Clone(CalibrateObjectives)
	defer func() {
		copy(DefaultLevels, saved[0])
		copy(metrics.CentralLevels, saved[1])
		copy(metrics.PITLevels, saved[2])
		copy(CalibrateObjectives, savedObj)
	}()
	DefaultLevels[0], metrics.CentralLevels[0], metrics.PITLevels[0], CalibrateObjectives[0] = 7, 0.3, 0.9, "x"
	got, err := m.PredictFlat(context.Background(), []float64{0.3}, 1, PredictOptions{Outputs: OutQuantiles})
	if err != nil || !slices.Equal(got.Levels, want.Levels) || got.Quantiles[0][0] != want.Quantiles[0][0] {
		t.Errorf("Predict after DefaultLevels[0] = 7: %v, %v", got, err)
	}
	c2, err := m.Calibration(context.Background(), x, 60, y)
	if err != nil || c2.PITError != cal.PITError || !maps.Equal(c2.Coverage, cal.Coverage) {
		t.Errorf("Calibration after CentralLevels and PITLevels changed: %+v, %v (before %+v)", c2, err, cal)
	}
	if err := checkCalibrateBy(CalibrateByNLL); err != nil {
		t.Errorf("CalibrateBy nll after CalibrateObjectives changed: %v", err)
	}
}
