package nn

import "decoreg/internal/par"

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
