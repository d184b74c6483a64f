package nn

import (
	"math"

	"decoreg/internal/par"
)

// ReLUInPlace sets s[i] = max(s[i], 0) with Go's max: a NaN stays NaN and
// -0 becomes +0. It is the in-place activation of the model's hidden
// layers, branch-free (random signs cost a branchy loop several times).
func ReLUInPlace(threads int, s []float32) { par.For(threads, len(s), 1, reluInPlace{s}) }

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
func ReLUMask(threads int, dout, out []float32) {
	need(out, len(dout), "ReLUMask out")
	par.For(threads, len(dout), 1, reluMask{dout, out})
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

// AddRows sets out[i*OC+j] = res[i*OC+j] + b[j] (float32 sums) for the N
// rows of width OC: a bias added to a residual, as a layer's output is
// started before its product is accumulated into it. out may be res.
func AddRows(out, res, b []float32, N, OC int) {
	need(out, N*OC, "AddRows out")
	need(res, N*OC, "AddRows res")
	need(b, OC, "AddRows b")
	w := addRowsVec(out, res, b, N, OC)
	for i := range N {
		o, r := out[i*OC:(i+1)*OC], res[i*OC:(i+1)*OC]
		for j := w; j < OC; j++ {
			o[j] = r[j] + b[j]
		}
	}
}
