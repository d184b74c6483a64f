package nn

import (
	"math"

	"decoreg/internal/par"
	"decoreg/internal/rng"
)

// DropoutInPlace applies inverted dropout to s in place: element i is
// zeroed with probability p and otherwise multiplied by 1/(1-p). Whether
// it is kept depends only on (seed, i), through a counter-based hash
// (SplitMix64's finalizer), so the mask is the same whatever the thread
// count and needs no state: the same seed gives the same mask. The
// backward pass needs no mask either: after a ReLU, the output is 0 where
// the element was dropped, so ReLUMask then DropoutScale give the
// gradient. A dropped element is +0 even if it was NaN or Inf. p must be
// in [0, 1); p = 0 leaves s as it is.
func DropoutInPlace(threads int, s []float32, p float64, seed uint64) {
	if p == 0 {
		return
	}
	if !(p > 0 && p < 1) {
		panic("nn: dropout probability outside [0, 1)")
	}
	par.For(threads, len(s), 2, dropout{s, dropCut(p), float32(1 / (1 - p)), seed})
}

// dropCut is the 32-bit cut below which a hash drops its element.
func dropCut(p float64) uint32 {
	return uint32(min(p*(1<<32), (1<<32)-1))
}

type dropout struct {
	s     []float32
	cut   uint32
	scale float32
	seed  uint64
}

// Run is branch-free: a random keep-or-drop branch mispredicts about as
// often as p, which cost a quarter of a 3x512 encoder's training step.
func (k dropout) Run(lo, hi int) {
	s := k.s[lo:hi]
	cut := uint64(k.cut)
	for j := range s {
		// all ones when kept (hash(i) - cut does not wrap below 0), else
		// 0: the bits of a dropped element are cleared, so that it is +0
		// even if it was NaN or Inf.
		keep := uint32((uint64(hash32(k.seed, lo+j))-cut)>>63) - 1
		s[j] = math.Float32frombits(math.Float32bits(s[j])&keep) * k.scale
	}
}

// DropKept reports whether DropoutInPlace(_, s, p, seed) keeps s[i].
func DropKept(seed uint64, i int, p float64) bool { return kept(seed, i, dropCut(p)) }

func kept(seed uint64, i int, cut uint32) bool { return hash32(seed, i) >= cut }

// hash32 is element i's uniform 32-bit draw: the high half of
// rng.Mix64(seed + i × SplitMix64's increment).
func hash32(seed uint64, i int) uint32 {
	return uint32(rng.Mix64(seed+uint64(i)*0x9e3779b97f4a7c15) >> 32)
}

// DropoutScale is the backward of DropoutInPlace after ReLUMask: it
// multiplies dout by 1/(1-p). (Dropped elements are 0 in the layer's
// output, so ReLUMask has already zeroed their gradient; kept ones were
// scaled by 1/(1-p) on the way forward.)
func DropoutScale(threads int, dout []float32, p float64) {
	if p == 0 {
		return
	}
	par.For(threads, len(dout), 1, scaleKernel{dout, float32(1 / (1 - p))})
}

type scaleKernel struct {
	s []float32
	a float32
}

func (k scaleKernel) Run(lo, hi int) {
	for i := lo; i < hi; i++ {
		k.s[i] *= k.a
	}
}
