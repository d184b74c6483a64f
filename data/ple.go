package data

import (
	"math"
)

// DefaultPLEBins is the default number of bins per feature of the
// piecewise linear encoding (FitPLE).
const DefaultPLEBins = 16

// MaxPLEBins limits the bins per feature of FitPLE.
const MaxPLEBins = 256

// FitPLE returns, per feature of x (rows x cols), the bin edges of its
// piecewise linear encoding with quantile bins (PLE; Gorishniy et al., "On
// Embeddings for Numerical Features in Tabular Deep Learning", 2022): the
// training values' quantiles at bins+1 evenly spaced levels from 0 to 1
// (linear interpolation), equal ones merged, so e_0 < e_1 < ... < e_T with
// 1 <= T <= bins, e_0 the smallest value and e_T the largest. A feature of
// at most bins+1 distinct values gets them as its edges, a bin between
// each two (a 0/1 feature its one bin [min, max]); one whose quantiles
// all merge into the two ends (mostly one value) gets one bin too. A constant feature gets nil:
// it is kept as one column (see PLEWidth). bins and cols must be >= 1 (it
// panics otherwise), and x finite: NaN has no place among the quantiles.
func FitPLE(x []float64, cols, bins int) [][]float64 {
	if bins < 1 || cols < 1 {
		panic("data: FitPLE: bins and cols must be >= 1")
	}
	rows := len(x) / cols
	col := make([]float64, rows)
	edges := make([][]float64, cols)
	for j := range cols {
		sortedColumn(col, x, cols, j)
		if rows == 0 || col[0] == col[rows-1] {
			continue
		}
		if d := distinctUpTo(col, bins+1); d != nil {
			// Few values (a 0/1 feature, a 1-5 rating): a bin between
			// each two, not quantiles interpolated between them, whose
			// bins no value falls in (equal columns).
			edges[j] = d
			continue
		}
		e := make([]float64, 0, bins+1)
		for t := 0; t <= bins; t++ {
			q := sortedQuantile(col, float64(t)/float64(bins))
			if len(e) == 0 || q > e[len(e)-1] {
				e = append(e, q)
			}
		}
		edges[j] = e
	}
	return edges
}

// distinctUpTo returns the distinct values of sorted if there are at most
// n of them, else nil.
func distinctUpTo(sorted []float64, n int) []float64 {
	var d []float64
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			if len(d) == n {
				return nil
			}
			d = append(d, v)
		}
	}
	return d
}

// PLEWidth is the number of columns that the encoding of FitPLE's edges
// gives: len(e)-1 for an encoded feature, 1 for a kept (constant) one.
func PLEWidth(edges [][]float64) int {
	w := 0
	for _, e := range edges {
		w += max(len(e)-1, 1)
	}
	return w
}

// PLEEncode writes the encoding of v by one feature's edges e (at least 2)
// to dst[:len(e)-1]: column t (1-based) is (v - e_{t-1}) / (e_t - e_{t-1})
// clipped to [0, 1], so a value in bin t has ones in the bins below it,
// its position within bin t, and zeros above. Values beyond the edges are
// clipped (all zeros below e_0, all ones above e_T). It panics if dst is
// shorter than len(e)-1.
func PLEEncode(dst []float64, e []float64, v float64) {
	for t := 1; t < len(e); t++ {
		lo, hi := e[t-1], e[t]
		var z float64
		switch {
		case v <= lo:
			z = 0
		case v >= hi:
			z = 1
		default:
			z = (v - lo) / (hi - lo)
			if math.IsInf(hi-lo, 0) { // edges far apart: (v-lo)/(hi-lo) would be NaN or 0
				z = (v/2 - lo/2) / (hi/2 - lo/2)
			}
		}
		dst[t-1] = z
	}
}
