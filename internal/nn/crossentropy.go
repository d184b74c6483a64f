package nn

import (
	"math"

	"decoreg/internal/par"
	"decoreg/internal/vec"
)

// SoftmaxCrossEntropyForward computes, per row i, the softmax of the logits
// restricted to the allowed tokens and the negative log-likelihood of the
// target:
//
//	probs[i,j] = exp(logits[i,j]) / sum over allowed j' of exp(logits[i,j'])  (allowed j; 0 otherwise)
//	losses[i]  = -log probs[i,targets[i]]
//
// logits, probs (N, V); targets, losses (N); mask (N, V) with mask[i,j]
// true when token j is allowed in row i, or nil for all allowed. The
// softmax subtracts the row's largest allowed logit and sums in float64;
// the loss is formed in log space (logit - max - log sum), so it stays
// finite and accurate where probs underflows. A target that is masked out
// (or a row with nothing allowed) gives loss +Inf. A target outside [0, V)
// panics.
func SoftmaxCrossEntropyForward(threads int, losses, probs, logits []float32, targets []int32, mask []bool, N, V int) {
	needDims("SoftmaxCrossEntropyForward", N, V)
	need(losses, N, "SoftmaxCrossEntropyForward losses")
	need(probs, N*V, "SoftmaxCrossEntropyForward probs")
	need(logits, N*V, "SoftmaxCrossEntropyForward logits")
	if mask != nil && len(mask) < N*V {
		panic("nn: SoftmaxCrossEntropyForward mask shorter than its shape")
	}
	if len(targets) < N {
		panic("nn: SoftmaxCrossEntropyForward targets shorter than N")
	}
	checkTokens(targets[:N], V, "nn: SoftmaxCrossEntropyForward target out of range")
	softmaxNLL(threads, losses, probs, logits, targets, mask, N, V, 0)
}

// softmaxNLL is SoftmaxCrossEntropyForward with offset added to every
// loss; the callers have checked the arguments.
func softmaxNLL(threads int, losses, probs, logits []float32, targets []int32, mask []bool, N, V int, offset float64) {
	par.For(threads, N, 8*V, softmaxNLLRows{losses, probs, logits, targets, mask, V, offset})
}

type softmaxNLLRows struct {
	losses, probs, logits []float32
	targets               []int32
	mask                  []bool
	V                     int
	offset                float64
}

func (k softmaxNLLRows) Run(lo, hi int) {
	V := k.V
	var buf [64]float64
	for i := lo; i < hi; i++ {
		l, p := k.logits[i*V:(i+1)*V], k.probs[i*V:(i+1)*V]
		var m []bool
		if k.mask != nil {
			m = k.mask[i*V : (i+1)*V]
		}
		maxv := float64(rowMax(l, m))
		var sum float64
		for c0 := 0; c0 < V; c0 += len(buf) {
			e := buf[:min(len(buf), V-c0)]
			for j := range e {
				e[j] = float64(l[c0+j]) - maxv
			}
			vec.ExpNegInPlace(e)
			for j, x := range e {
				if m == nil || m[c0+j] {
					p[c0+j] = nonneg32(x)
					sum += x
				} else {
					p[c0+j] = 0
				}
			}
		}
		if math.IsInf(maxv, -1) { // nothing allowed (or all allowed logits -Inf)
			clear(p)
			k.losses[i] = float32(math.Inf(1))
			continue
		}
		scaleRow(p, sum) // sum >= 1: the largest term is exp(0)
		tgt := k.targets[i]
		if m != nil && !m[tgt] {
			k.losses[i] = float32(math.Inf(1))
			continue
		}
		k.losses[i] = float32(-(float64(l[tgt]) - maxv - math.Log(sum)) + k.offset)
	}
}

// rowMax is the largest of the allowed entries of l (every entry where
// allowed is nil), -Inf if none is allowed, NaN if an allowed one is NaN.
// (The builtin max on float64s, with its NaN and signed-zero rules on
// every element, took five times the exponentials' time.)
func rowMax(l []float32, allowed []bool) float32 {
	mx, nan := float32(math.Inf(-1)), false
	for j, x := range l {
		if allowed != nil && !allowed[j] {
			continue
		}
		if x > mx {
			mx = x
		} else if x != x {
			nan = true
		}
	}
	if nan {
		return float32(math.NaN())
	}
	return mx
}

// scaleRow divides the row by sum, with probabilities below the smallest
// normal float32 made 0: subnormal operands slow the gradient's matrix
// products a hundredfold (a 256-bin Riemann head's far bins are below 1e-38
// once it has learnt), and change nothing a float32 sum can see.
func scaleRow(p []float32, sum float64) {
	inv := 1 / sum
	for j, e := range p {
		p[j] = nonneg32(float64(e) * inv)
	}
}

// nonneg32 is float32(x) for x >= 0, or 0 where that would be subnormal
// (whose conversion is as slow as the arithmetic on it).
func nonneg32(x float64) float32 {
	if x < 0x1p-126 {
		return 0
	}
	return float32(x)
}

// SoftmaxCrossEntropyBackward sets dlogits to the gradient of the losses
// with respect to the logits:
//
//	dlogits[i,j] = dlosses[i] * (probs[i,j] - [j == targets[i]])
//
// dlogits, probs (N, V) (probs from the forward pass, 0 where masked out,
// which makes the masked logits' gradient 0); dlosses, targets (N). For a
// row whose target was masked out (loss +Inf) the gradient is undefined;
// this formula then pushes the masked target's logit up.
func SoftmaxCrossEntropyBackward(threads int, dlogits, dlosses, probs []float32, targets []int32, N, V int) {
	needDims("SoftmaxCrossEntropyBackward", N, V)
	need(dlogits, N*V, "SoftmaxCrossEntropyBackward dlogits")
	need(dlosses, N, "SoftmaxCrossEntropyBackward dlosses")
	need(probs, N*V, "SoftmaxCrossEntropyBackward probs")
	if len(targets) < N {
		panic("nn: SoftmaxCrossEntropyBackward targets shorter than N")
	}
	checkTokens(targets[:N], V, "nn: SoftmaxCrossEntropyBackward target out of range")
	par.For(threads, N, 2*V, softmaxNLLBackward{dlogits, dlosses, probs, targets, V})
}

type softmaxNLLBackward struct {
	dlogits, dlosses, probs []float32
	targets                 []int32
	V                       int
}

func (k softmaxNLLBackward) Run(lo, hi int) {
	V := k.V
	for i := lo; i < hi; i++ {
		d, p, g := k.dlogits[i*V:(i+1)*V], k.probs[i*V:(i+1)*V], k.dlosses[i]
		for j, x := range p {
			d[j] = ftz(g * x) // no subnormal operands for the products (see scaleRow)
		}
		d[k.targets[i]] -= g
	}
}

// HistogramNLLForward is the Riemann (histogram) head's loss: a softmax over
// nbins uniform bins on [0, 1] and the negative log density of the target's
// bin, density = p_bin / bin width = p_bin * nbins:
//
//	probs[i,:] = softmax(logits[i,:]);  losses[i] = -log(probs[i,bins[i]] * nbins)
//
// logits, probs (N, nbins); bins, losses (N). A bin outside [0, nbins)
// panics.
func HistogramNLLForward(threads int, losses, probs, logits []float32, bins []int32, N, nbins int) {
	needDims("HistogramNLLForward", N, nbins)
	need(losses, N, "HistogramNLLForward losses")
	need(probs, N*nbins, "HistogramNLLForward probs")
	need(logits, N*nbins, "HistogramNLLForward logits")
	if len(bins) < N {
		panic("nn: HistogramNLLForward bins shorter than N")
	}
	checkTokens(bins[:N], nbins, "nn: HistogramNLLForward bin out of range")
	softmaxNLL(threads, losses, probs, logits, bins, nil, N, nbins, -math.Log(float64(nbins)))
}

// HistogramNLLBackward sets dlogits to the gradient of
// HistogramNLLForward (the constant log nbins has none):
//
//	dlogits[i,j] = dlosses[i] * (probs[i,j] - [j == bins[i]])
func HistogramNLLBackward(threads int, dlogits, dlosses, probs []float32, bins []int32, N, nbins int) {
	SoftmaxCrossEntropyBackward(threads, dlogits, dlosses, probs, bins, N, nbins)
}

// MSEForward sets losses[i] = (pred[i] - target[i])^2, with no factor 1/2
// (as PyTorch's MSELoss with reduction "none").
func MSEForward(losses, pred, target []float32, N int) {
	needDims("MSEForward", N)
	need(losses, N, "MSEForward losses")
	need(pred, N, "MSEForward pred")
	need(target, N, "MSEForward target")
	for i, p := range pred[:N] {
		d := p - target[i]
		losses[i] = d * d
	}
}

// MSEBackward sets dpred[i] = dlosses[i] * 2 * (pred[i] - target[i]).
func MSEBackward(dpred, dlosses, pred, target []float32, N int) {
	needDims("MSEBackward", N)
	need(dpred, N, "MSEBackward dpred")
	need(dlosses, N, "MSEBackward dlosses")
	need(pred, N, "MSEBackward pred")
	need(target, N, "MSEBackward target")
	for i, p := range pred[:N] {
		dpred[i] = dlosses[i] * 2 * (p - target[i])
	}
}

// SoftCrossEntropyBackward sets dlogits to the gradient of the
// cross-entropy of the probabilities of the last SoftmaxCrossEntropyForward
// against soft targets q (a distribution over the tokens of each row):
//
//	loss[i] = -sum_j q[i,j] log probs[i,j];  dlogits[i,j] = dlosses[i] * (probs[i,j] * sum_j' q[i,j'] - q[i,j])
//
// soft (N, V) must be 0 where the forward's mask excluded a token and each
// row should sum to 1 (the factor sum q makes the formula the exact
// gradient of the loss as written for any non-negative q). With a one-hot q
// this is SoftmaxCrossEntropyBackward up to float32 rounding (its
// products are formed differently: head builds no soft targets where
// every position would be one-hot).
func SoftCrossEntropyBackward(threads int, dlogits, dlosses, probs, soft []float32, N, V int) {
	needDims("SoftCrossEntropyBackward", N, V)
	need(dlogits, N*V, "SoftCrossEntropyBackward dlogits")
	need(dlosses, N, "SoftCrossEntropyBackward dlosses")
	need(probs, N*V, "SoftCrossEntropyBackward probs")
	need(soft, N*V, "SoftCrossEntropyBackward soft")
	par.For(threads, N, 3*V, softCEBackward{dlogits, dlosses, probs, soft, V})
}

type softCEBackward struct {
	dlogits, dlosses, probs, soft []float32
	V                             int
}

func (k softCEBackward) Run(lo, hi int) {
	V := k.V
	for i := lo; i < hi; i++ {
		d, p, q, g := k.dlogits[i*V:(i+1)*V], k.probs[i*V:(i+1)*V], k.soft[i*V:(i+1)*V], k.dlosses[i]
		var s float32
		for _, x := range q {
			s += x
		}
		for j, x := range p {
			d[j] = ftz(g * (x*s - q[j]))
		}
	}
}
