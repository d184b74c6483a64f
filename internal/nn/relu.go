package nn

import (
	"math"

	"decoreg/internal/par"
)

// ReLUForward sets out[i] = max(in[i], 0) for i < len(in). out may alias in
// (in-place activation). A NaN input gives 0.
func ReLUForward(out, in []float32) {
	need(out, len(in), "ReLUForward out")
	par.For(len(in), 1, reluForward{out, in})
}

type reluForward struct{ out, in []float32 }

func (k reluForward) Run(lo, hi int) {
	o, x := k.out[lo:hi], k.in[lo:hi]
	for i, v := range x {
		if v > 0 {
			o[i] = v
		} else {
			o[i] = 0
		}
	}
}

// ReLUBackward accumulates din[i] += dout[i] * [out[i] > 0] for
// i < len(dout), where out is ReLUForward's output (or its input: the
// sign test is the same). din must not alias dout: the accumulation would
// count dout twice; it panics when both start at the same element.
func ReLUBackward(din, dout, out []float32) {
	n := len(dout)
	need(din, n, "ReLUBackward din")
	need(out, n, "ReLUBackward out")
	if sameStart(din, dout) {
		panic("nn: ReLUBackward din aliases dout")
	}
	par.For(n, 1, reluBackward{din, dout, out})
}

type reluBackward struct{ din, dout, out []float32 }

func (k reluBackward) Run(lo, hi int) {
	d, g, o := k.din[lo:hi], k.dout[lo:hi], k.out[lo:hi]
	for i, v := range o {
		if v > 0 {
			d[i] += g[i]
		}
	}
}

// ReLUInPlace sets s[i] = max(s[i], 0) with Go's max: a NaN stays NaN and
// -0 becomes +0. It is the in-place activation of the model's hidden
// layers, branch-free (random signs cost a branchy loop several times).
func ReLUInPlace(s []float32) { par.For(len(s), 1, reluInPlace{s}) }

type reluInPlace struct{ s []float32 }

func (k reluInPlace) Run(lo, hi int) {
	x := k.s[lo:hi]
	n := reluVec(x)
	for i, v := range x[n:] {
		x[n+i] = max(v, 0)
	}
}

// ReLUMask is the ReLU backward in place: it zeroes dout[i] where out[i]
// is +0 or negative (the int32 reading of its bits is at most 0), out
// being ReLUInPlace's output. It is branch-free.
func ReLUMask(dout, out []float32) {
	need(out, len(dout), "ReLUMask out")
	par.For(len(dout), 1, reluMask{dout, out})
}

type reluMask struct{ dout, out []float32 }

func (k reluMask) Run(lo, hi int) {
	d, o := k.dout[lo:hi], k.out[lo:hi]
	o = o[:len(d)]
	n := maskVec(d, o)
	for i := n; i < len(d); i++ {
		b := int32(math.Float32bits(o[i]))
		off := uint32((b - 1) >> 31) // all ones when b-1 < 0 (wrapping)
		d[i] = math.Float32frombits(math.Float32bits(d[i]) &^ off)
	}
}
