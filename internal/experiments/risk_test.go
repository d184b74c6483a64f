package experiments

import (
	"context"
	"math"
	"testing"

	"decoreg"
	"decoreg/dist"
	"decoreg/synth"
)

// The decoder's cell probabilities from its batched sequence probabilities
// equal the differences of its exact CDF at the cell edges, and sum to 1.
func TestCellProbs(t *testing.T) {
	tn, _ := synth.NewTruncNorm(riskMean, riskStd)
	const n, k = 512, 5
	y := tn.Sample(n, 1)
	m, err := decoreg.FitFlat(context.Background(), make([]float64, n), n, 1, y, RiskConfig("decoder", k, 0, Options{Quick: true, Threads: 1}))
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Dist([]float64{0})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.(*dist.Token); !ok {
		t.Fatalf("a decoder's distribution is %T", d)
	}
	p, err := cellProbs(m, d, k)
	if err != nil {
		t.Fatal(err)
	}
	sum, prev := 0.0, 0.0
	for j, v := range p {
		sum += v
		c := 1.0
		if j+1 < len(p) {
			c = d.CDF(float64(j+1) / float64(len(p)))
		}
		if !(math.Abs((c-prev)-v) <= 1e-9) {
			t.Errorf("cell %d: %v from the sequence, %v from the CDF", j, v, c-prev)
		}
		prev = c
	}
	if !(math.Abs(sum-1) <= 1e-9) {
		t.Errorf("cell probabilities sum to %v", sum)
	}
	if mise := tn.MISE(p); !(mise > 0) || math.IsInf(mise, 0) {
		t.Errorf("MISE %v", mise)
	}
}
