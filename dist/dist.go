package dist

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Distribution is a predictive distribution p(y|x) for one input x, in the
// original units of y. Every regression head returns one.
type Distribution interface {
	// Mean is E[y].
	Mean() float64
	// Median is Quantile(0.5).
	Median() float64
	// Mode is the most probable value: the point of highest density for
	// the Riemann, MDN and point heads (for an MDN of more than
	// MaxModeStarts components, the highest of the modes its search
	// reaches: see MDN.Mode); for token heads the centre of the
	// most probable cell (token sequence) found by beam search, which is
	// the highest-density cell when all cells have the same width (see
	// Token.Mode); for a Mixture (an ensemble) the one of its components'
	// modes where the mixture's density is highest, which need not be
	// the mixture's densest point (see Mixture.Mode).
	Mode() float64
	// Quantile returns the q-quantile, 0 <= q <= 1.
	Quantile(q float64) float64
	// CDF returns P(Y <= y).
	CDF(y float64) float64
	// LogPDF returns the log density at y (-Inf outside the support and at NaN;
	// NaN for a head without a density).
	LogPDF(y float64) float64
	// Sample draws n values using r; none when n <= 0. A nil r panics
	// (where n > 0), except for Point, which draws nothing at random.
	// opts shape a token distribution's draws (and a Mixture's of them),
	// which panics on options SampleOptions.Validate refuses; Riemann uses
	// only Centres; MDN, Point and Recalibrated ignore them. The n
	// values (and a Token's n sequences) are allocated at once, so n is
	// bounded by memory: an n past it panics as make does (draw many in
	// chunks, as decoreg sample does; a server should cap n).
	Sample(n int, opts SampleOptions, r *rand.Rand) []float64
}

// Quantiles returns d's quantiles at the levels qs: in one batched pass
// when d offers one (a Token walks its tree once for all levels),
// otherwise one Quantile call per level. They never decrease as the level
// grows: levels an ulp apart can round to quantiles an ulp the other way
// (a walk's or a bisection's last step), and the higher level then gets
// the lower one's value. d must not be nil.
func Quantiles(d Distribution, qs []float64) []float64 {
	var out []float64
	if b, ok := d.(interface{ Quantiles([]float64) []float64 }); ok {
		out = b.Quantiles(qs)
	} else {
		out = make([]float64, len(qs))
		for i, q := range qs {
			out[i] = d.Quantile(q)
		}
	}
	Monotone(qs, out)
	return out
}

// Monotone makes quantiles out at levels qs never decrease with the level,
// as Quantiles returns them: it raises out[i] to the largest out[j] of a
// lower level qs[j] < qs[i]; NaN levels and values are left alone. For
// callers that compute the quantiles of many levels in chunks. It panics
// if out is shorter than qs.
func Monotone(qs, out []float64) {
	if len(out) < len(qs) {
		panic(fmt.Sprintf("dist: Monotone: %d quantiles for %d levels", len(out), len(qs)))
	}
	if len(qs) < 2 {
		return
	}
	sorted := true
	for i := 1; i < len(qs); i++ {
		if !(qs[i] >= qs[i-1]) {
			sorted = false
			break
		}
	}
	if sorted { // the usual case: one pass
		for i := 1; i < len(qs); i++ {
			if out[i] < out[i-1] {
				out[i] = out[i-1]
			}
		}
		return
	}
	idx := make([]int, 0, len(qs))
	for i, q := range qs {
		if !math.IsNaN(q) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(qs[a], qs[b]) })
	top := math.Inf(-1)
	for _, i := range idx {
		if out[i] < top {
			out[i] = top
		}
		if out[i] > top {
			top = out[i]
		}
	}
}

// LogPDFs returns d's log-densities at ys: batched when d offers it (a
// Token scores them through one Stepper), otherwise one LogPDF call each.
// d must not be nil.
func LogPDFs(d Distribution, ys []float64) []float64 {
	if b, ok := d.(interface{ LogPDFs([]float64) []float64 }); ok {
		return b.LogPDFs(ys)
	}
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = d.LogPDF(y)
	}
	return out
}

// SampleOptions control sampling from token heads; other heads ignore
// them, but for Centres, which Riemann heads also follow. The zero value
// means plain ancestral sampling at temperature 1, each draw uniform
// within its cell: draws from the piecewise-uniform density that LogPDF,
// CDF and Quantile describe. A Recalibrated distribution (a model
// calibrated by its map of the CDF, the isotonic objective) draws by
// inverse CDF and ignores them all.
type SampleOptions struct {
	Temperature float64 // 0 means 1
	TopK        int     // keep the K most probable allowed tokens; 0 = all
	TopP        float64 // keep the smallest set whose mass reaches P; 0 = 1
	// Centres draws each value at the centre of its cell (a token
	// sequence's decoded value, as the paper's decoder) or bin, instead
	// of uniformly within it: a discrete distribution on the centres,
	// whose quantiles are not Quantile's.
	Centres bool
}

// Stepper decodes a batch of token sequences in lock step for ONE input x,
// reusing a key/value cache so that each step costs one incremental pass.
// Position 0 is the projected encoding phi(x).
//
// A Stepper may also have a method Release(); the distributions call it
// when they are done with the Stepper, which they never use afterwards,
// so that its buffers can serve the next Start.
type Stepper interface {
	// N is the number of sequences in the batch.
	N() int
	// Step appends tokens[i] to sequence i (tokens is nil on the first
	// call, which consumes position 0) and writes the next-token logits of
	// every sequence into logits, row-major (N, V).
	Step(tokens []int, logits []float32)
	// Keep reorders the batch: afterwards sequence i is the old sequence
	// idx[i]. len(idx) may differ from N (sequences are dropped or
	// duplicated).
	Keep(idx []int)
}

// releaseStepper hands st's buffers back to its Decoder when it offers
// that (a Release method); st must not be used afterwards.
func releaseStepper(st Stepper) {
	if r, ok := st.(interface{ Release() }); ok {
		r.Release()
	}
}

// Decoder starts Steppers for one input x.
type Decoder interface {
	// Start returns a Stepper with n empty sequences.
	Start(n int) Stepper
}

// Affine maps a head's own units t to the original units of y:
// y = Offset + Scale*t, Scale > 0. Densities convert with
// log p(y) = log p(t) - log(Scale).
type Affine struct {
	Offset, Scale float64 // y = Offset + Scale*t
}
