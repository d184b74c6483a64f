package decoreg

import (
	"math"

	"decoreg/data"
)

// pleStats are the ple input transform's statistics fitted on the training rows:
// the bin edges per feature and the centre and scale of each column of the
// encoding.
type pleStats struct {
	bins      [][]float64
	mean, std []float64
}

// fitPLE fits the ple input transform on x (rows x cols) with bins bins per
// feature: the edges (data.FitPLE), then the mean and sd of each column
// of the training rows' encoding, by which the network's inputs are
// standardized as the other encoders' are.
func fitPLE(x []float64, rows, cols, bins int) (*pleStats, error) {
	edges := data.FitPLE(x, cols, bins)
	w := data.PLEWidth(edges)
	enc := make([]float64, rows*w)
	for i := range rows {
		if err := pleRow(enc[i*w:(i+1)*w], edges, x[i*cols:(i+1)*cols], i); err != nil {
			return nil, err
		}
	}
	// The encoded columns lie in [0, 1] and the kept ones are constant:
	// their means and sds are finite.
	st := data.FitStandardizer(enc, w)
	return &pleStats{bins: edges, mean: st.Mean, std: st.Std}, nil
}

// pleRow writes the encoding of one row's features x by edges to dst
// (data.PLEWidth(edges) values): each binned feature's columns
// (data.PLEEncode), a constant (kept) one as it is. Row i names the row in
// errors: a NaN feature gives one.
func pleRow(dst []float64, edges [][]float64, x []float64, i int) error {
	c := 0
	for j, e := range edges {
		v := x[j]
		if math.IsNaN(v) {
			return dataErr(i, j, ErrBadInput, "feature value is NaN")
		}
		if e == nil {
			dst[c] = v
			c++
			continue
		}
		data.PLEEncode(dst[c:c+len(e)-1], e, v)
		c += len(e) - 1
	}
	return nil
}

// pleFeature is the feature whose encoding holds column c.
func pleFeature(edges [][]float64, c int) int {
	for j, e := range edges {
		c -= max(len(e)-1, 1)
		if c < 0 {
			return j
		}
	}
	return len(edges) - 1
}
