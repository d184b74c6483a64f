package nn

import (
	"math"

	"decoreg/internal/par"
)

// Adam is the Adam optimizer over one flat parameter slice, matching
// PyTorch's torch.optim.Adam (Decoupled false) and torch.optim.AdamW
// (Decoupled true), single-tensor path. With g the gradient and t the step
// count after increment:
//
//	Adam:   g += WeightDecay * p                     (L2 in the gradient)
//	AdamW:  p *= 1 - LR*WeightDecay                   (decoupled decay)
//	m = Beta1*m + (1-Beta1)*g;   v = Beta2*v + (1-Beta2)*g*g
//	p -= LR/(1-Beta1^t) * m / (sqrt(v)/sqrt(1-Beta2^t) + Eps)
//
// The bias corrections are computed in float64 once per step; the element
// updates are float32 and split over elements, so results do not depend on
// the thread count. The fields may be changed between steps. Two
// departures from PyTorch's float32 arithmetic, each of the order of one
// rounding of the update: sqrt(v) is multiplied by 1/sqrt(1-Beta2^t)
// (rounded once per step) where PyTorch divides (a divide costs what a
// square root does; the multiply saves about 30% of the step), and
// subnormal moments and intermediate results are zeros (see adamGo).
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float32
	// Decoupled selects AdamW's decoupled weight decay; false puts the L2
	// penalty into the gradient as torch.optim.Adam does.
	Decoupled bool

	m, v []float32 // first and second moments, (n)
	t    int       // steps taken
}

// NewAdam returns an Adam optimizer for n parameters with learning rate lr
// and PyTorch's defaults: Beta1 0.9, Beta2 0.999, Eps 1e-8, no weight
// decay, Decoupled false.
func NewAdam(n int, lr float32) *Adam {
	return &Adam{
		LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		m: make([]float32, n), v: make([]float32, n),
	}
}

// Step applies one update to params using grads, on up to threads
// goroutines; params and grads must have the optimizer's length n.
func (a *Adam) Step(threads int, params, grads []float32) {
	n := len(a.m)
	if len(params) != n || len(grads) != n {
		panic("nn: Adam.Step params or grads length differs from the optimizer's")
	}
	a.t++
	t := float64(a.t)
	bc1 := 1 - math.Pow(float64(a.Beta1), t)
	bc2 := 1 - math.Pow(float64(a.Beta2), t)
	stepSize := float32(float64(a.LR) / bc1)
	invBc2Sqrt := float32(1 / math.Sqrt(bc2))
	k := adamStep{params: params, grads: grads, m: a.m, v: a.v,
		b1: a.Beta1, b2: a.Beta2, eps: a.Eps, wd: a.WeightDecay, decay: 1,
		stepSize: stepSize, invBc2Sqrt: invBc2Sqrt}
	if a.Decoupled {
		k.decay, k.wd = 1-a.LR*a.WeightDecay, 0
	}
	par.For(threads, n, 16, k)
}

type adamStep struct {
	params, grads, m, v                          []float32
	b1, b2, eps, wd, decay, stepSize, invBc2Sqrt float32
}

func (k adamStep) Run(lo, hi int) {
	p, g, m, v := k.params[lo:hi], k.grads[lo:hi], k.m[lo:hi], k.v[lo:hi]
	i := adamVec(&k, p, g, m, v)
	adamGo(&k, p[i:], g[i:], m[i:], v[i:])
}

// adamGo is the element update. The explicit float32 conversions round
// every product and quotient, so that no build fuses a multiply-add; every
// operand and result is passed through ftz, as the vector kernel (adamVec)
// runs with the processor's flush-to-zero and denormals-are-zero modes, so
// that both compute the same bits. (Moments that decay towards zero, and
// the squares of tiny gradients, are subnormal after a few hundred steps;
// arithmetic on them is about a hundred times slower than on normal
// numbers. A zero in their place changes an update by less than 1e-38.)
func adamGo(k *adamStep, p, g, m, v []float32) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, b2, c1, c2 := ftz(k.b1), ftz(k.b2), ftz(1-k.b1), ftz(1-k.b2)
	wd, decay, eps := ftz(k.wd), ftz(k.decay), ftz(k.eps)
	stepSize, invBc2Sqrt := ftz(k.stepSize), ftz(k.invBc2Sqrt)
	for i := range g {
		pi, gi := ftz(p[i]), ftz(g[i])
		if k.wd != 0 {
			gi = ftz(gi + ftz(wd*pi))
		}
		mi := ftz(ftz(b1*ftz(m[i])) + ftz(c1*gi))
		vi := ftz(ftz(b2*ftz(v[i])) + ftz(ftz(c2*gi)*gi))
		m[i], v[i] = mi, vi
		denom := ftz(ftz(float32(math.Sqrt(float64(vi)))*invBc2Sqrt) + eps)
		p[i] = ftz(ftz(pi*decay) - ftz(ftz(stepSize*mi)/denom))
	}
}

// ftz is x, or a zero of x's sign where x is subnormal.
func ftz(x float32) float32 {
	if b := math.Float32bits(x); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return x
}
