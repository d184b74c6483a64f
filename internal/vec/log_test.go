package vec

import (
	"math"
	"testing"
)

// TestLogSubnormal: against the closed form log(m * 2^e) = log(m) + e log 2
// of powers of two and of 1.5 times them, subnormal and normal, where
// math.Log on amd64 was 35 nats off at 5e-324.
func TestLogSubnormal(t *testing.T) {
	for e := -1074; e <= -1000; e++ {
		for _, m := range []float64{1, 1.5} {
			x := math.Ldexp(m, e)
			if math.Ldexp(x, -e) != m {
				continue // 1.5 * 2^-1074 is not representable
			}
			want := math.Log(m) + float64(e)*math.Ln2
			if got := Log(x); math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Errorf("Log(%g * 2^%d) = %.15g, want %.15g", m, e, got, want)
			}
		}
	}
	for _, x := range []float64{0, -1, math.Inf(1), math.NaN(), 1, math.E} {
		if got, want := Log(x), math.Log(x); !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log(%g) = %g, want math.Log's %g", x, got, want)
		}
	}
}
