package decoreg

import (
	"math"

	"decoreg/dist"
)

// maxCRPSRows is the most validation rows that StopByCRPS scores each
// epoch, and that Tune's greedy ensemble selection scores mixtures on by
// their CRPS: the first of the validation rows, which are in the split's
// random order.
const maxCRPSRows = 1000

// stopScore returns train.Settings.Score for c.StopBy: with StopByCRPS,
// crpsRows' mean CRPS of m's distributions on the validation rows (of x,
// rows of cols raw features, and y), in u units; nil otherwise (the NLL).
func (c Config) stopScore(m *Model, x []float64, cols int, y []float64) func(val []int) float64 {
	if c.StopBy != StopByCRPS {
		return nil
	}
	var xv, yv []float64 // the same rows every epoch
	return func(val []int) float64 {
		if xv == nil {
			xv, yv = gatherRows(val[:min(len(val), maxCRPSRows)], x, cols, y)
		}
		crps, err := crpsRows(m, xv, yv)
		if err != nil {
			return math.NaN() // the network's outputs overflowed: diverged
		}
		var s float64
		for _, v := range crps {
			s += v
		}
		return s / float64(len(crps)) / m.units.Range()
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
	p, err := m.PredictFlat(x, rows, PredictOptions{Outputs: OutMean | OutDist})
	if err != nil {
		return nil, err
	}
	return p.Dist, nil
}

// mixtureCRPS is the mean CRPS, in u units (range), over the validation
// rows of the equal mixture of the models set indexes in ds (ds[k][i]:
// model k's distribution of row i, target y[i]).
func mixtureCRPS(ds [][]dist.Distribution, y []float64, set []int, rng float64) float64 {
	comps := make([]dist.Distribution, len(set))
	var s float64
	for i := range y {
		for j, k := range set {
			comps[j] = ds[k][i]
		}
		c, _ := dist.CRPS(dist.NewMixture(comps), y[i])
		s += c
	}
	return s / float64(len(y)) / rng
}
