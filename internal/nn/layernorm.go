package nn

import "decoreg/internal/par"

// LayerNormForward normalises each row of in over its C values, as
// PyTorch's nn.LayerNorm(C, eps) (biased variance, eps inside the root):
//
//	out[i,j] = (in[i,j] - mean[i]) * rstd[i] * w[j] + b[j]
//	rstd[i]  = 1 / sqrt(var[i] + eps)
//
// out, in (N, C); w, b (C); mean, rstd (N) are saved for the backward
// pass. Mean and variance are accumulated in float64 (two passes), in the
// order rows.go describes.
func LayerNormForward(threads int, out, mean, rstd, in, w, b []float32, N, C int, eps float32) {
	needDims("LayerNormForward", N, C)
	need(out, N*C, "LayerNormForward out")
	need(mean, N, "LayerNormForward mean")
	need(rstd, N, "LayerNormForward rstd")
	need(in, N*C, "LayerNormForward in")
	need(w, C, "LayerNormForward w")
	need(b, C, "LayerNormForward b")
	par.For(threads, N, 8*C, layerNormForward{out, mean, rstd, in, w[:C], b[:C], C, eps})
}

type layerNormForward struct {
	out, mean, rstd, in, w, b []float32
	C                         int
	eps                       float32
}

func (k layerNormForward) Run(lo, hi int) {
	lnRows(k.out, k.mean, k.rstd, k.in, k.w, k.b, lo, hi, k.C, k.eps)
}

// LayerNormBackward computes the gradients of LayerNormForward. With
// n = (in - mean)*rstd and dn = dout*w, per row:
//
//	din  = rstd * (dn - mean_j(dn) - n * mean_j(dn*n))
//	dw  += sum over rows of dout*n
//	db  += sum over rows of dout
//
// din is overwritten; the parameter gradients dw and db are added to.
// dout, in (N, C); w (C); mean, rstd (N) from the forward pass. din, dw, db
// may each be nil. Row means and column sums are taken in float64.
func LayerNormBackward(threads int, din, dw, db, dout, in, w, mean, rstd []float32, N, C int) {
	needDims("LayerNormBackward", N, C)
	need(dout, N*C, "LayerNormBackward dout")
	need(in, N*C, "LayerNormBackward in")
	need(mean, N, "LayerNormBackward mean")
	need(rstd, N, "LayerNormBackward rstd")
	if din != nil {
		need(din, N*C, "LayerNormBackward din")
		need(w, C, "LayerNormBackward w")
		par.For(threads, N, 12*C, layerNormBackwardRows{din, dout, in, w[:C], mean, rstd, C})
	}
	if dw == nil && db == nil {
		return
	}
	needOpt(dw, C, "LayerNormBackward dw")
	needOpt(db, C, "LayerNormBackward db")
	par.For(threads, blocks(C), 4*N*colBlock, layerNormBackwardCols{dw, db, dout, in, mean, rstd, N, C})
}

// layerNormBackwardRows computes din, one row per index.
type layerNormBackwardRows struct {
	din, dout, in, w, mean, rstd []float32
	C                            int
}

func (k layerNormBackwardRows) Run(lo, hi int) {
	lnBackRows(k.din, k.dout, k.in, k.w, k.mean, k.rstd, lo, hi, k.C)
}

// layerNormBackwardCols computes dw and db (either may be nil), one block
// of colBlock columns per index, summing rows in order in float64.
type layerNormBackwardCols struct {
	dw, db, dout, in, mean, rstd []float32
	N, C                         int
}

func (k layerNormBackwardCols) Run(lo, hi int) {
	j0, j1 := lo*colBlock, min(hi*colBlock, k.C)
	var dw, db []float32
	if k.dw != nil {
		dw = k.dw[j0:j1]
	}
	if k.db != nil {
		db = k.db[j0:j1]
	}
	lnCols8(dw, db, k.dout, k.in, k.mean, k.rstd, k.N, k.C, j0)
}
