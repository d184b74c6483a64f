package nn

import (
	"math"

	"decoreg/internal/par"
)

// MDNStdEps is added to every mixture standard deviation, sd = ELU(raw) + 1
// + MDNStdEps, so that sd stays positive where exp(raw) underflows; the
// same 1e-6 as the PyTorch reference head.
const MDNStdEps = 1e-6

// MDNCacheLen returns the length of the cache MDNForward needs for N rows
// of M components: 2*N*M, laid out (N, 2M).
func MDNCacheLen(N, M int) int { return 2 * N * M }

// MDNForward is the mixture density network's negative log-likelihood of
// y under M Gaussian components, computed in log space:
//
//	params[i] = [w (M) | mu (M) | raw (M)]     weight logits, means, raw scales
//	sd_m      = ELU(raw_m) + 1 + MDNStdEps      (= exp(raw_m) + eps for raw_m <= 0)
//	a_m       = log_softmax(w)_m + log Normal(y; mu_m, sd_m)
//	losses[i] = -logsumexp_m(a_m)
//
// params (N, 3M); y, losses (N); cache (N, 2M) (see MDNCacheLen) receives,
// per row, [pi (M) | r (M)] with pi = softmax(w) and r = softmax(a) (the
// posterior responsibilities), which is all MDNBackward needs besides
// params and y (it recomputes sd from raw). Everything is computed in
// float64, with max-shifted sums.
func MDNForward(threads int, losses, cache, params, y []float32, N, M int) {
	needDims("MDNForward", N, M)
	if M == 0 {
		panic("nn: MDNForward with M = 0")
	}
	need(losses, N, "MDNForward losses")
	need(cache, N*2*M, "MDNForward cache")
	need(params, N*3*M, "MDNForward params")
	need(y, N, "MDNForward y")
	par.For(threads, N, 60*M, mdnForward{losses, cache, params, y, M})
}

type mdnForward struct {
	losses, cache, params, y []float32
	M                        int
}

func (k mdnForward) Run(lo, hi int) {
	const halfLog2Pi = 0.91893853320467274178 // log(2 pi)/2
	M := k.M
	for i := lo; i < hi; i++ {
		p, c := k.params[i*3*M:(i+1)*3*M], k.cache[i*2*M:(i+1)*2*M]
		w, mu, raw := p[:M], p[M:2*M], p[2*M:]
		pi, r := c[:M], c[M:]
		yi := float64(k.y[i])
		lseW := logSumExp(w)
		// a_m, evaluated again in each pass below rather than stored, so
		// that the loss sees it in full float64 precision.
		a := func(m int) float64 {
			s := mdnStd(raw[m])
			z := (yi - float64(mu[m])) / s
			return float64(w[m]) - lseW - 0.5*z*z - math.Log(s) - halfLog2Pi
		}
		amax := math.Inf(-1)
		for m := range M {
			amax = max(amax, a(m))
		}
		var sum float64
		for m := range M {
			sum += math.Exp(a(m) - amax)
		}
		L := amax + math.Log(sum)
		k.losses[i] = float32(-L)
		for m := range M { // no subnormals for the backward pass (see scaleRow)
			pi[m] = nonneg32(math.Exp(float64(w[m]) - lseW))
			r[m] = nonneg32(math.Exp(a(m) - L))
		}
	}
}

// mdnStd returns ELU(raw) + 1 + MDNStdEps in float64.
func mdnStd(raw float32) float64 {
	x := float64(raw)
	if x > 0 {
		return x + 1 + MDNStdEps
	}
	return math.Exp(x) + MDNStdEps
}

// logSumExp returns log sum exp(x) in float64, max-shifted.
func logSumExp(x []float32) float64 {
	maxv := math.Inf(-1)
	for _, v := range x {
		maxv = max(maxv, float64(v))
	}
	if math.IsInf(maxv, 0) {
		return maxv
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - maxv)
	}
	return maxv + math.Log(s)
}

// MDNBackward sets dparams to the gradient of MDNForward's losses with
// respect to params, with sd_m recomputed from raw_m, z_m = (y - mu_m)/sd_m,
// and pi, r from the cache:
//
//	dw_m   = dloss * (pi_m - r_m)
//	dmu_m  = dloss * (-r_m z_m / sd_m)
//	draw_m = dloss * (-r_m (z_m^2 - 1) / sd_m) * dsd/draw,  dsd/draw = 1 (raw > 0) or exp(raw)
//
// dparams, params (N, 3M); dlosses, y (N); cache (N, 2M) from MDNForward.
func MDNBackward(threads int, dparams, dlosses, cache, params, y []float32, N, M int) {
	needDims("MDNBackward", N, M)
	need(dparams, N*3*M, "MDNBackward dparams")
	need(dlosses, N, "MDNBackward dlosses")
	need(cache, N*2*M, "MDNBackward cache")
	need(params, N*3*M, "MDNBackward params")
	need(y, N, "MDNBackward y")
	par.For(threads, N, 30*M, mdnBackward{dparams, dlosses, cache, params, y, M})
}

type mdnBackward struct {
	dparams, dlosses, cache, params, y []float32
	M                                  int
}

func (k mdnBackward) Run(lo, hi int) {
	M := k.M
	for i := lo; i < hi; i++ {
		p, c, d := k.params[i*3*M:(i+1)*3*M], k.cache[i*2*M:(i+1)*2*M], k.dparams[i*3*M:(i+1)*3*M]
		mu, raw := p[M:2*M], p[2*M:]
		pi, r := c[:M], c[M:]
		dw, dmu, draw := d[:M], d[M:2*M], d[2*M:]
		g, yi := float64(k.dlosses[i]), float64(k.y[i])
		for m := range M {
			s, rm := mdnStd(raw[m]), float64(r[m])
			z := (yi - float64(mu[m])) / s
			dw[m] = float32(g * (float64(pi[m]) - rm))
			dmu[m] = float32(g * (-rm * z / s))
			dsd := -rm * (z*z - 1) / s
			if raw[m] <= 0 {
				dsd *= math.Exp(float64(raw[m]))
			}
			draw[m] = float32(g * dsd)
		}
	}
}
