package nn

import (
	"decoreg/internal/gemm"
	"decoreg/internal/par"
)

// LinearForward computes out = in · wᵀ + b, as PyTorch's nn.Linear.
//
//	out (N, OC), in (N, C), w (OC, C), b (OC) or nil for no bias.
func LinearForward(out, in, w, b []float32, N, C, OC int) {
	needDims("LinearForward", N, C, OC)
	need(out, N*OC, "LinearForward out")
	need(in, N*C, "LinearForward in")
	need(w, OC*C, "LinearForward w")
	needOpt(b, OC, "LinearForward b")
	beta := float32(0)
	if b != nil {
		bias := b[:OC]
		for i := 0; i < N; i++ {
			copy(out[i*OC:(i+1)*OC], bias)
		}
		beta = 1
	}
	gemm.Sgemm(false, true, N, OC, C, 1, in, max(C, 1), w, max(C, 1), beta, out, max(OC, 1))
}

// LinearBackward accumulates the gradients of LinearForward:
//
//	din (N, C)  += dout · w
//	dw  (OC, C) += doutᵀ · in
//	db  (OC)    += sum over rows of dout
//
// with dout (N, OC). Any of din, dw, db may be nil.
func LinearBackward(din, dw, db, dout, in, w []float32, N, C, OC int) {
	LinearBackwardMode(din, dw, db, dout, in, w, N, C, OC, true, true)
}

// LinearBackwardSet is LinearBackward except that din is overwritten,
// din = dout · w, instead of accumulated into; dw and db still accumulate.
func LinearBackwardSet(din, dw, db, dout, in, w []float32, N, C, OC int) {
	LinearBackwardMode(din, dw, db, dout, in, w, N, C, OC, false, true)
}

// LinearBackwardMode is LinearBackward with a choice between accumulating
// into (true) and overwriting (false) din, with accDin, and dw, with accDW;
// db always accumulates. Overwriting spares the matrix multiply a read of
// its output.
func LinearBackwardMode(din, dw, db, dout, in, w []float32, N, C, OC int, accDin, accDW bool) {
	needDims("LinearBackward", N, C, OC)
	dinBeta, dwBeta := float32(0), float32(0)
	if accDin {
		dinBeta = 1
	}
	if accDW {
		dwBeta = 1
	}
	need(dout, N*OC, "LinearBackward dout")
	ldc, ldo := max(C, 1), max(OC, 1)
	if din != nil {
		need(din, N*C, "LinearBackward din")
		need(w, OC*C, "LinearBackward w")
		gemm.Sgemm(false, false, N, C, OC, 1, dout, ldo, w, ldc, dinBeta, din, ldc)
	}
	if dw != nil {
		need(dw, OC*C, "LinearBackward dw")
		need(in, N*C, "LinearBackward in")
		gemm.Sgemm(true, false, OC, C, N, 1, dout, ldo, in, ldc, dwBeta, dw, ldc)
	}
	if db != nil {
		need(db, OC, "LinearBackward db")
		par.For(blocks(OC), N*colBlock, colSums{db, dout, N, OC})
	}
}
