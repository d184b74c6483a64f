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
// the thread count. The fields may be changed between steps.
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
	bc2Sqrt := float32(math.Sqrt(bc2))
	k := adamStep{params: params, grads: grads, m: a.m, v: a.v,
		b1: a.Beta1, b2: a.Beta2, eps: a.Eps, wd: a.WeightDecay, decay: 1,
		stepSize: stepSize, bc2Sqrt: bc2Sqrt}
	if a.Decoupled {
		k.decay, k.wd = 1-a.LR*a.WeightDecay, 0
	}
	par.For(threads, n, 16, k)
}

type adamStep struct {
	params, grads, m, v                       []float32
	b1, b2, eps, wd, decay, stepSize, bc2Sqrt float32
}

func (k adamStep) Run(lo, hi int) {
	p, g, m, v := k.params[lo:hi], k.grads[lo:hi], k.m[lo:hi], k.v[lo:hi]
	i := adamVec(&k, p, g, m, v)
	adamGo(&k, p[i:], g[i:], m[i:], v[i:])
}

// adamGo is the element update. The explicit float32 conversions round
// every product and quotient, so that no build fuses a multiply-add and
// the vector kernel (adamVec) computes the same bits.
func adamGo(k *adamStep, p, g, m, v []float32) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, b2, c1, c2 := k.b1, k.b2, 1-k.b1, 1-k.b2
	for i, gi := range g {
		pi := p[i]
		if k.wd != 0 {
			gi += float32(k.wd * pi)
		}
		pi = float32(pi * k.decay)
		mi := float32(b1*m[i]) + float32(c1*gi)
		vi := float32(b2*v[i]) + float32(float32(c2*gi)*gi)
		m[i], v[i] = mi, vi
		denom := float32(float32(math.Sqrt(float64(vi)))/k.bc2Sqrt) + k.eps
		p[i] = pi - float32(float32(k.stepSize*mi)/denom)
	}
}
