package serve

import (
	"context"
	"math"
	"math/rand/v2"

	"decoreg/dist"
	"decoreg/internal/jsonfloat"
)

// How much of a row's long outputs is computed between checks of the
// request's context: draws (a decoder draws a chunk through one cache),
// quantile levels (one batched walk) and density points.
const (
	sampleChunk   = 1024
	quantileChunk = 256
	densityChunk  = 4096
)

func fl(v float64) *jsonfloat.Float {
	f := jsonfloat.Float(v)
	return &f
}

func fls(v []float64) []jsonfloat.Float {
	out := make([]jsonfloat.Float, len(v))
	for i, x := range v {
		out[i] = jsonfloat.Float(x)
	}
	return out
}

// answer computes the outputs of q for its row i, whose distribution is dd.
// It stops early, with a partial answer, once ctx is done (the request
// timed out or went away): long outputs are computed in chunks.
func (q *query) answer(ctx context.Context, dd dist.Distribution, i int) Prediction {
	var p Prediction
	if q.want[outMean] {
		p.Mean = fl(dd.Mean())
	}
	if q.want[outMedian] {
		p.Median = fl(dd.Median())
	}
	if q.want[outMode] {
		p.Mode = fl(dd.Mode())
	}
	if q.want[outQuantiles] {
		var qs []float64
		for lo := 0; lo < len(q.levels) && ctx.Err() == nil; lo += quantileChunk {
			qs = append(qs, dist.Quantiles(dd, q.levels[lo:min(lo+quantileChunk, len(q.levels))])...)
		}
		dist.Monotone(q.levels[:len(qs)], qs) // across the chunks too, as predict's one call
		p.Quantiles = fls(qs)
	}
	if q.want[outLogPDF] {
		p.LogPDF = fl(dd.LogPDF(q.y[i]))
	}
	if q.want[outCDF] {
		p.CDF = fl(dd.CDF(q.y[i]))
	}
	if q.want[outSamples] {
		// In chunks, as 'decoreg sample' draws them, so that memory does
		// not grow with n (a decoder draws a chunk through one cache).
		r := rand.New(rand.NewPCG(q.seed, uint64(i)))
		p.Samples = make([]jsonfloat.Float, 0, q.n)
		for done := 0; done < q.n && ctx.Err() == nil; done += sampleChunk {
			for _, v := range dd.Sample(min(sampleChunk, q.n-done), q.sample, r) {
				p.Samples = append(p.Samples, jsonfloat.Float(v))
			}
		}
	}
	if q.want[outDensity] {
		p.Density = density(ctx, dd, q.dens)
	}
	return p
}

// density evaluates dd's log-density on the grid of s.
func density(ctx context.Context, dd dist.Distribution, s DensitySpec) *Density {
	var lo, hi float64
	if s.Lo != nil {
		lo, hi = *s.Lo, *s.Hi
	} else {
		t := dist.Quantiles(dd, []float64{0, densityTail, 1 - densityTail, 1})
		lo, hi = t[1], t[2]
		pad := 0.05 * (hi - lo)
		if !(pad > 0) || math.IsInf(pad, 0) {
			pad = 0.5 * max(1, math.Abs(lo)) * 1e-3
		}
		lo, hi = lo-pad, hi+pad
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo+hi) {
			lo, hi = t[1], t[2]
		}
		// Not past a bounded support's ends (its 0 and 1 quantiles,
		// where the density beyond is 0): a grid of few points held
		// nothing else (2 points: both -Inf). A Hamming or repeated
		// tokenization's 0 and 1 quantiles are the least and greatest of
		// its draws, with density beyond them: not cut there.
		probe := 1e-6 * (t[3] - t[0]) // beyond the rounding of a fixed range's ends that its extreme cells hold (vocab.BoundEnds)
		if lo < t[0] && t[0] < hi && math.IsInf(dd.LogPDF(t[0]-probe), -1) {
			lo = t[0]
		}
		if hi > t[3] && t[3] > lo && math.IsInf(dd.LogPDF(t[3]+probe), -1) {
			hi = t[3]
		}
	}
	ys := make([]float64, s.N)
	for k := range ys {
		t := float64(k) / float64(s.N-1)
		ys[k] = lo*(1-t) + hi*t // never overflows for finite lo, hi
	}
	ys[s.N-1] = hi
	lp := make([]float64, 0, len(ys))
	for a := 0; a < len(ys) && ctx.Err() == nil; a += densityChunk {
		part := ys[a:min(a+densityChunk, len(ys))]
		lp = append(lp, dist.LogPDFs(dd, part)...)
	}
	return &Density{Y: fls(ys), LogPDF: fls(lp)}
}
