package nn

import (
	"decoreg/internal/gemm"
	"decoreg/internal/par"
)

// LinearForward computes out = in · wᵀ + b, as PyTorch's nn.Linear.
//
//	out (N, OC), in (N, C), w (OC, C), b (OC) or nil for no bias.
func LinearForward(threads int, out, in, w, b []float32, N, C, OC int) {
	needDims("LinearForward", N, C, OC)
	need(out, N*OC, "LinearForward out")
	need(in, N*C, "LinearForward in")
	need(w, OC*C, "LinearForward w")
	needOpt(b, OC, "LinearForward b")
	gemm.Sgemm(threads, false, true, N, OC, C, 1, in, max(C, 1), w, max(C, 1), initBias(out, b, N, OC), out, max(OC, 1))
}

// initBias writes the bias b (when not nil) into every row of out (N,
// OC) and returns the beta with which the multiply then adds to out.
func initBias(out, b []float32, N, OC int) (beta float32) {
	if b == nil {
		return 0
	}
	bias := b[:OC]
	for i := 0; i < N; i++ {
		copy(out[i*OC:(i+1)*OC], bias)
	}
	return 1
}

// LinearForwardPacked is LinearForward with w packed beforehand
// (gemm.PackB(true, OC, C, w, C)): the same results, bit for bit,
// without packing w at every call. It panics if w's dimensions are not
// (OC, C).
func LinearForwardPacked(threads int, out, in []float32, w *gemm.PackedB, b []float32, N, C, OC int) {
	needDims("LinearForwardPacked", N, C, OC)
	if n, k := w.Dims(); n != OC || k != C {
		panic("nn: LinearForwardPacked with weights packed for other dimensions")
	}
	need(out, N*OC, "LinearForwardPacked out")
	need(in, N*C, "LinearForwardPacked in")
	needOpt(b, OC, "LinearForwardPacked b")
	gemm.SgemmPacked(threads, false, N, 1, in, max(C, 1), w, initBias(out, b, N, OC), out, max(OC, 1))
}

// LinearBackward computes the gradients of LinearForward for dout (N, OC):
//
//	din (N, C)  = dout · w                  (+= when addIn)
//	dw  (OC, C) = doutᵀ · in                (+= when addParams)
//	db  (OC)    = sum over rows of dout     (+= when addParams)
//
// Any of din, dw, db may be nil. The model adds din into a residual's
// gradient (addIn), and overwrites the parameter gradients on the first
// backward pass after ZeroGrad and adds to them on later ones; overwriting
// spares the matrix multiply a read of its output.
func LinearBackward(threads int, din, dw, db, dout, in, w []float32, N, C, OC int, addIn, addParams bool) {
	needDims("LinearBackward", N, C, OC)
	need(dout, N*OC, "LinearBackward dout")
	ldc, ldo := max(C, 1), max(OC, 1)
	if din != nil {
		need(din, N*C, "LinearBackward din")
		need(w, OC*C, "LinearBackward w")
		gemm.Sgemm(threads, false, false, N, C, OC, 1, dout, ldo, w, ldc, betaOf(addIn), din, ldc)
	}
	if dw != nil {
		need(dw, OC*C, "LinearBackward dw")
		need(in, N*C, "LinearBackward in")
		gemm.Sgemm(threads, true, false, OC, C, N, 1, dout, ldo, in, ldc, betaOf(addParams), dw, ldc)
	}
	if db != nil {
		need(db, OC, "LinearBackward db")
		if !addParams {
			clear(db[:OC])
		}
		par.For(threads, blocks(OC), N*colBlock, colSums{db, dout, N, OC})
	}
}

// betaOf is the beta of a multiply that adds to its output (1) or
// overwrites it (0).
func betaOf(add bool) float32 {
	if add {
		return 1
	}
	return 0
}
