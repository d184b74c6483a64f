package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// maskedNLL64 is the float64 twin of SoftmaxCrossEntropyForward's loss,
// written as -log(exp(l_t) / sum over allowed exp(l_j)) without a shift
// (the test logits are small).
func maskedNLL64(logits []float64, targets []int32, mask []bool, N, V int) []float64 {
	out := make([]float64, N)
	for i := 0; i < N; i++ {
		z := 0.0
		for j := 0; j < V; j++ {
			if mask == nil || mask[i*V+j] {
				z += math.Exp(logits[i*V+j])
			}
		}
		out[i] = -math.Log(math.Exp(logits[i*V+int(targets[i])]) / z)
	}
	return out
}

func TestSoftmaxCrossEntropy(t *testing.T) {
	for _, masked := range []bool{false, true} {
		r := rng.New(12)
		N, V := 5, 6
		logits, g := uniform(r, N*V, 3), uniform(r, N, 1)
		targets := make([]int32, N)
		var mask []bool
		if masked {
			mask = make([]bool, N*V)
		}
		for i := range targets {
			targets[i] = int32(r.IntN(V))
			if masked {
				for j := 0; j < V; j++ {
					mask[i*V+j] = r.Float64() < 0.5 || j == int(targets[i])
				}
			}
		}
		losses, probs := make([]float32, N), uniform(r, N*V, 1)
		SoftmaxCrossEntropyForward(2, losses, probs, logits, targets, mask, N, V)
		checkClose(t, "CE losses", losses, maskedNLL64(to64(logits), targets, mask, N, V), fwdAtol, fwdRtol)
		for i := 0; i < N; i++ {
			sum := 0.0
			for j := 0; j < V; j++ {
				p := probs[i*V+j]
				if mask != nil && !mask[i*V+j] && p != 0 {
					t.Fatalf("masked prob %v at (%d,%d)", p, i, j)
				}
				sum += float64(p)
			}
			if !(math.Abs(sum-1) <= 1e-6) {
				t.Fatalf("row %d probs sum to %v", i, sum)
			}
		}
		dl := garbage(N * V)
		SoftmaxCrossEntropyBackward(2, dl, g, probs, targets, N, V)
		checkSetGrad(t, "CE dlogits", dl, logits, nil, func(x []float64) float64 {
			return weighted(maskedNLL64(x, targets, mask, N, V), g)
		})
	}
}

func TestSoftmaxCrossEntropyEdges(t *testing.T) {
	V := 3
	losses, probs := make([]float32, 3), make([]float32, 3*V)
	logits := []float32{
		1000, 0, -1000, // extreme logits: finite, exact loss
		1, 2, 3, // target masked out
		1, 2, 3, // nothing allowed
	}
	mask := []bool{true, true, true, true, false, true, false, false, false}
	SoftmaxCrossEntropyForward(2, losses, probs, logits, []int32{1, 1, 0}, mask, 3, V)
	if losses[0] != 1000 {
		t.Errorf("loss with logits (1000, 0, -1000), target 1 = %v, want 1000", losses[0])
	}
	if !math.IsInf(float64(losses[1]), 1) || !math.IsInf(float64(losses[2]), 1) {
		t.Errorf("masked target / empty mask losses %v %v, want +Inf", losses[1], losses[2])
	}
	e := math.Exp(-2)
	if w := 1 / (1 + e); !(math.Abs(float64(probs[5])-w) <= 1e-7) || probs[4] != 0 {
		t.Errorf("row 1 probs %v, want [%v 0 %v]", probs[3:6], 1-w, w)
	}
	for _, p := range probs[6:] {
		if p != 0 {
			t.Errorf("empty-mask row probs %v, want 0", probs[6:])
		}
	}
	mustPanic(t, "target out of range", func() {
		SoftmaxCrossEntropyForward(2, losses, probs, logits, []int32{3}, nil, 1, V)
	})
}

func histNLL64(logits []float64, bins []int32, N, nb int) []float64 {
	out := maskedNLL64(logits, bins, nil, N, nb)
	for i := range out {
		out[i] -= math.Log(float64(nb))
	}
	return out
}

func TestHistogramNLL(t *testing.T) {
	r := rng.New(13)
	N, nb := 4, 7
	logits, g := uniform(r, N*nb, 2), uniform(r, N, 1)
	bins := []int32{0, 6, 3, 3}
	losses, probs := make([]float32, N), make([]float32, N*nb)
	HistogramNLLForward(2, losses, probs, logits, bins, N, nb)
	checkClose(t, "Histogram losses", losses, histNLL64(to64(logits), bins, N, nb), fwdAtol, fwdRtol)
	dl := garbage(N * nb)
	HistogramNLLBackward(2, dl, g, probs, bins, N, nb)
	checkSetGrad(t, "Histogram dlogits", dl, logits, nil, func(x []float64) float64 {
		return weighted(histNLL64(x, bins, N, nb), g)
	})
	// Uniform logits: density 1 everywhere on [0,1], NLL 0.
	HistogramNLLForward(2, losses[:1], probs[:nb], make([]float32, nb), []int32{2}, 1, nb)
	if !(math.Abs(float64(losses[0])) <= 1e-6) {
		t.Errorf("uniform histogram NLL %v, want 0", losses[0])
	}
}

func TestMSE(t *testing.T) {
	r := rng.New(14)
	N := 6
	pred, target, g := uniform(r, N, 1), uniform(r, N, 1), uniform(r, N, 1)
	mse64 := func(p []float64) []float64 {
		out := make([]float64, N)
		for i := range out {
			out[i] = (p[i] - float64(target[i])) * (p[i] - float64(target[i]))
		}
		return out
	}
	losses := make([]float32, N)
	MSEForward(losses, pred, target, N)
	checkClose(t, "MSE losses", losses, mse64(to64(pred)), 1e-7, 1e-6)
	dp := garbage(N)
	MSEBackward(dp, g, pred, target, N)
	checkSetGrad(t, "MSE dpred", dp, pred, nil, func(x []float64) float64 { return weighted(mse64(x), g) })
}

// TestSoftmaxNoSubnormals checks that probabilities and gradients below the
// smallest normal float32 are zeros (subnormal operands slow the gradient's
// matrix products a hundredfold), that the ones above it are exact, and
// the row maximum's rules: a NaN logit gives a NaN loss, an -Inf row with
// nothing else allowed is an empty row.
func TestSoftmaxNoSubnormals(t *testing.T) {
	V := 6
	logits := []float32{
		0, -86, -87, -88, -100, -104, // exp: 4.5e-38 (normal), then subnormal ones
		1, float32(math.NaN()), 2, 3, 4, 5,
		float32(math.Inf(-1)), float32(math.Inf(-1)), 0, 0, 0, 0,
	}
	mask := []bool{true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false}
	losses, probs := make([]float32, 3), make([]float32, 3*V)
	SoftmaxCrossEntropyForward(1, losses, probs, logits, []int32{0, 0, 0}, mask, 3, V)
	for j, p := range probs[:V] {
		w := math.Exp(float64(logits[j])) / (1 + math.Exp(-86) + math.Exp(-87) + math.Exp(-88) + math.Exp(-100) + math.Exp(-104))
		if w < 0x1p-126 {
			w = 0
		}
		if p != float32(w) {
			t.Errorf("probs[%d] = %g, want %g", j, p, float32(w))
		}
	}
	d := make([]float32, 3*V)
	SoftmaxCrossEntropyBackward(1, d, []float32{0.5, 0.5, 0.5}, probs, []int32{1, 0, 0}, 3, V)
	for j, x := range d[:V] {
		if x != 0 && math.Abs(float64(x)) < 0x1p-126 {
			t.Errorf("dlogits[%d] = %g is subnormal", j, x)
		}
	}
	if d[2] != 0 || d[0] == 0 {
		t.Errorf("dlogits %v: want 0 where 0.5*prob is subnormal", d[:V])
	}
	if !math.IsNaN(float64(losses[1])) {
		t.Errorf("row with a NaN logit: loss %v, want NaN", losses[1])
	}
	if !math.IsInf(float64(losses[2]), 1) {
		t.Errorf("row with only -Inf allowed: loss %v, want +Inf", losses[2])
	}
}

// softCE64 is the float64 cross-entropy -sum_j q[i,j] log softmax(logits)[i,j]
// over the allowed tokens (mask nil: all), written without a shift.
func softCE64(logits []float64, q []float32, mask []bool, N, V int) []float64 {
	out := make([]float64, N)
	for i := range N {
		z := 0.0
		for j := range V {
			if mask == nil || mask[i*V+j] {
				z += math.Exp(logits[i*V+j])
			}
		}
		for j := range V {
			if q[i*V+j] != 0 {
				out[i] -= float64(q[i*V+j]) * (logits[i*V+j] - math.Log(z))
			}
		}
	}
	return out
}

func TestSoftCrossEntropyBackward(t *testing.T) {
	for _, masked := range []bool{false, true} {
		for _, unnorm := range []bool{false, true} {
			r := rng.New(13)
			N, V := 6, 7
			logits, g := uniform(r, N*V, 3), uniform(r, N, 1)
			targets := make([]int32, N)
			q := make([]float32, N*V)
			var mask []bool
			if masked {
				mask = make([]bool, N*V)
			}
			for i := range N {
				targets[i] = int32(r.IntN(V))
				var s float32
				for j := range V {
					if masked {
						mask[i*V+j] = r.Float64() < 0.5 || j == int(targets[i])
						if !mask[i*V+j] {
							continue
						}
					}
					q[i*V+j] = float32(r.Float64())
					s += q[i*V+j]
				}
				if !unnorm {
					for j := range V {
						q[i*V+j] /= s
					}
				}
			}
			losses, probs := make([]float32, N), make([]float32, N*V)
			SoftmaxCrossEntropyForward(2, losses, probs, logits, targets, mask, N, V)
			dl := garbage(N * V)
			SoftCrossEntropyBackward(2, dl, g, probs, q, N, V)
			checkSetGrad(t, "soft CE dlogits", dl, logits, nil, func(x []float64) float64 {
				return weighted(softCE64(x, q, mask, N, V), g)
			})
			// A one-hot q is the hard cross-entropy's gradient.
			if !unnorm {
				clear(q)
				for i, tg := range targets {
					q[i*V+int(tg)] = 1
				}
				hard := garbage(N * V)
				SoftmaxCrossEntropyBackward(2, hard, g, probs, targets, N, V)
				SoftCrossEntropyBackward(2, dl, g, probs, q, N, V)
				for j := range dl {
					if !(math.Abs(float64(dl[j]-hard[j])) <= 1e-7) {
						t.Fatalf("one-hot soft targets: dlogits[%d] = %v, the hard gradient %v", j, dl[j], hard[j])
					}
				}
			}
		}
	}
}
