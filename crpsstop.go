package decoreg

import (
	"context"
	"math"

	"decoreg/dist"
)

// maxCRPSComponents is the most components of an MDN that StopByCRPS
// accepts: its CRPS costs the square of them per row.
const maxCRPSComponents = 256

// maxCRPSRows is the most validation rows that StopByCRPS scores each
// epoch, and that Tune's greedy ensemble selection scores mixtures on by
// their CRPS: the first of the validation rows, which are in the split's
// random order.
const maxCRPSRows = 1000

// stopScore returns train.Settings.Score for c.StopBy: with StopByCRPS,
// the mean CRPS of m's distributions on the validation rows (of x, rows of
// cols raw features, and y; the first maxCRPSRows of them), in u units;
// nil otherwise (the NLL). The rows are scored in chunks of crpsChunk;
// once ctx is done it stops between them and returns NaN, which
// train.Run.Continue reports as the cancellation it is.
func (c Config) stopScore(ctx context.Context, m *Model, x []float64, cols int, y []float64) func(val []int) float64 {
	if c.StopBy != StopByCRPS {
		return nil
	}
	var xv, yv []float64 // the same rows every epoch
	return func(val []int) float64 {
		if xv == nil {
			xv, yv = gatherRows(val[:min(len(val), maxCRPSRows)], x, cols, y)
		}
		var s float64
		for lo := 0; lo < len(yv); lo += crpsChunk {
			if ctx.Err() != nil {
				return math.NaN()
			}
			hi := min(lo+crpsChunk, len(yv))
			crps, err := crpsRows(m, xv[lo*cols:hi*cols], yv[lo:hi])
			if err != nil {
				return math.NaN() // the network's outputs overflowed: diverged
			}
			for _, v := range crps {
				s += v
			}
		}
		return s / float64(len(yv)) / m.units.Range()
	}
}

// gatherRows gathers rows val of x (cols features each) and y.
func gatherRows(val []int, x []float64, cols int, y []float64) (xv, yv []float64) {
	xv = make([]float64, 0, len(val)*cols)
	yv = make([]float64, len(val))
	for k, i := range val {
		xv = append(xv, x[i*cols:(i+1)*cols]...)
		yv[k] = y[i]
	}
	return xv, yv
}

// crpsRows returns the CRPS (in y units) of m's distribution of each row
// of x at its target y. The tree expansions are made as Predict's mean
// makes them (rows in groups, on m's threads), which CRPS then walks.
func crpsRows(m *Model, x, y []float64) ([]float64, error) {
	ds, err := preparedDists(m, x, len(y))
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(y))
	for i, d := range ds {
		out[i], _ = dist.CRPS(d, y[i])
	}
	return out, nil
}

// preparedDists returns m's distributions of rows of x with their tree
// expansions made (Predict's mean), so that CRPS and mixtures of them only
// walk the cached cells.
func preparedDists(m *Model, x []float64, rows int) ([]dist.Distribution, error) {
	p, err := m.PredictFlat(context.Background(), x, rows, PredictOptions{Outputs: OutMean | OutDist})
	if err != nil {
		return nil, err
	}
	return p.Dist, nil
}

// crpsGram returns G, the mean over rows of xv (cols features each) with
// targets yv of G_ab = ∫ (F_a(t) - 1{y <= t}) (F_b(t) - 1{y <= t}) dt,
// F_a models[a]'s CDF, in u units (models[0]'s range): the CRPS of the
// equal mixture of a set S of the models is then (1/|S|²) Σ_{a,b in S}
// G_ab (crpsOfSet), so that greedy selection scores every candidate set
// from it. G_aa is model a's CRPS; G_ab follows from the CRPS of the
// mixture of a and b, 2 CRPS(½F_a + ½F_b) - (G_aa + G_bb)/2. Rows are
// scored in chunks (the distributions of one chunk held at a time),
// crpsGramRows of them; it returns ctx's error once cancelled.
func crpsGram(ctx context.Context, models []*Model, xv, yv []float64, cols int) ([][]float64, error) {
	n := len(models)
	g := make([][]float64, n)
	for a := range g {
		g[a] = make([]float64, n)
	}
	rows := crpsGramRows(models, len(yv))
	ds := make([][]dist.Distribution, n)
	diag := make([]float64, n)
	for lo := 0; lo < rows; lo += crpsChunk {
		hi := min(lo+crpsChunk, rows)
		for a, m := range models {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var err error
			if ds[a], err = preparedDists(m, xv[lo*cols:hi*cols], hi-lo); err != nil {
				return nil, err
			}
		}
		for i := range hi - lo {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			y := yv[lo+i]
			for a := range n {
				diag[a], _ = dist.CRPS(ds[a][i], y)
				g[a][a] += diag[a]
			}
			for a := range n {
				for b := a + 1; b < n; b++ {
					pair, _ := dist.CRPS(dist.NewMixture([]dist.Distribution{ds[a][i], ds[b][i]}), y)
					v := 2*pair - (diag[a]+diag[b])/2
					g[a][b] += v
					g[b][a] += v
				}
			}
		}
	}
	r := models[0].units.Range()
	for a := range g {
		for b := range g[a] {
			g[a][b] /= float64(rows) * r
		}
	}
	return g, nil
}

// crpsOfSet is the validation CRPS of the equal mixture of the models set
// indexes, from crpsGram's g.
func crpsOfSet(g [][]float64, set []int) float64 {
	var s float64
	for _, a := range set {
		for _, b := range set {
			s += g[a][b]
		}
	}
	return s / float64(len(set)*len(set))
}

// crpsChunk is how many rows' distributions crpsGram holds at a time.
const crpsChunk = 64

// maxCRPSWork bounds crpsGram's work, in crpsWork's units (about a
// nanosecond each): the rows it scores are at most maxCRPSRows, fewer
// (down to minCRPSGramRows) when its pairs' mixtures are costly (by
// these weights a library of 20 decoders scores its 1,000 rows in about
// 21 s).
const (
	maxCRPSWork     = 3e10
	minCRPSGramRows = 32
)

// crpsGramRows is the number of the n validation rows crpsGram scores:
// every one up to maxCRPSRows, unless the CRPS of each pair of models'
// mixture on them would cost more than maxCRPSWork in all.
func crpsGramRows(models []*Model, n int) int {
	// Each model is in n+1 of the pairs a <= b (twice in its own).
	var w float64
	for _, m := range models {
		w += crpsWork(m)
	}
	w *= float64(len(models) + 1)
	rows := min(n, maxCRPSRows)
	if w > 0 && float64(rows)*w > maxCRPSWork {
		rows = max(min(rows, minCRPSGramRows), int(maxCRPSWork/w))
	}
	return rows
}

// crpsWork is a rough cost, in nanoseconds, of m's share of the CRPS of a
// two-model mixture at one row, as measured on an idle AMD EPYC (Zen 4)
// core: a Riemann head's bins cut against another grid's (about 60 ns a
// bin), an MDN's pooled components, quadratic in them (about 30 ns ×
// K²), a decoder's expansion (sorted and cut: about 50 µs).
func crpsWork(m *Model) float64 {
	switch m.cfg.Head {
	case HeadRiemann:
		return 60 * float64(m.cfg.Bins)
	case HeadMDN:
		k := float64(m.cfg.Components)
		return 30 * k * k
	}
	return 50e3
}
