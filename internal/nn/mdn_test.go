package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// mdn64 is the float64 twin of MDNForward's loss, written in probability
// space: -log sum_m pi_m Normal(y; mu_m, sd_m) (fine for the moderate test
// values; MDNForward works in log space).
func mdn64(params []float64, y []float32, N, M int) []float64 {
	out := make([]float64, N)
	for i := 0; i < N; i++ {
		p := params[i*3*M : (i+1)*3*M]
		z := 0.0
		for m := 0; m < M; m++ {
			z += math.Exp(p[m])
		}
		dens := 0.0
		for m := 0; m < M; m++ {
			raw := p[2*M+m]
			elu := raw
			if raw <= 0 {
				elu = math.Exp(raw) - 1
			}
			sd := elu + 1 + 1e-6
			d := (float64(y[i]) - p[M+m]) / sd
			dens += math.Exp(p[m]) / z * math.Exp(-d*d/2) / (sd * math.Sqrt(2*math.Pi))
		}
		out[i] = -math.Log(dens)
	}
	return out
}

func TestMDN(t *testing.T) {
	for _, M := range []int{1, 3} {
		r := rng.New(15)
		N := 5
		params, y, g := uniform(r, N*3*M, 1), uniform(r, N, 1), uniform(r, N, 1)
		for i := range params { // keep raw scales away from ELU's kink at 0
			if v := params[i]; v > -0.05 && v < 0.05 {
				params[i] = 0.3
			}
		}
		losses, cache := make([]float32, N), uniform(r, MDNCacheLen(N, M), 1)
		MDNForward(2, losses, cache, params, y, N, M)
		checkClose(t, "MDN losses", losses, mdn64(to64(params), y, N, M), fwdAtol, fwdRtol)
		dp := garbage(N * 3 * M)
		MDNBackward(2, dp, g, cache, params, y, N, M)
		checkSetGrad(t, "MDN dparams", dp, params, nil, func(x []float64) float64 {
			return weighted(mdn64(x, y, N, M), g)
		})
	}
}

func TestMDNLogSpace(t *testing.T) {
	// One narrow component far from y: the density underflows float64 in
	// probability space, the log-space loss is 0.5 z^2 + log sd + log(2pi)/2.
	raw := float32(-5)
	params := []float32{0, 0.5, raw}
	y := []float32{-0.5}
	losses, cache := make([]float32, 1), make([]float32, 2)
	MDNForward(2, losses, cache, params, y, 1, 1)
	sd := math.Exp(-5) + 1e-6
	z := -1 / sd
	want := 0.5*z*z + math.Log(sd) + 0.5*math.Log(2*math.Pi)
	if !(math.Abs(float64(losses[0])-want) <= 1e-6*want) {
		t.Errorf("far-tail MDN loss %v, want %v", losses[0], want)
	}
	// Two components, one responsible: the loss ignores the other.
	params = []float32{0, 0, 0.1, 50, 0.2, 0.2}
	y = []float32{0.1}
	MDNForward(2, losses, make([]float32, 4), params, y, 1, 2)
	sd = 1.2 + 1e-6
	want = math.Log(2) + math.Log(sd) + 0.5*math.Log(2*math.Pi) // z = 0
	if !(math.Abs(float64(losses[0])-want) <= 1e-5) {
		t.Errorf("two-component MDN loss %v, want %v", losses[0], want)
	}
}
