package nn

import (
	"math"

	"decoreg/internal/par"
)

// LayerNormForward normalises each row of in over its C values, as
// PyTorch's nn.LayerNorm(C, eps) (biased variance, eps inside the root):
//
//	out[i,j] = (in[i,j] - mean[i]) * rstd[i] * w[j] + b[j]
//	rstd[i]  = 1 / sqrt(var[i] + eps)
//
// out, in (N, C); w, b (C); mean, rstd (N) are saved for the backward
// pass. Mean and variance are accumulated in float64 (two passes).
func LayerNormForward(out, mean, rstd, in, w, b []float32, N, C int, eps float32) {
	needDims("LayerNormForward", N, C)
	need(out, N*C, "LayerNormForward out")
	need(mean, N, "LayerNormForward mean")
	need(rstd, N, "LayerNormForward rstd")
	need(in, N*C, "LayerNormForward in")
	need(w, C, "LayerNormForward w")
	need(b, C, "LayerNormForward b")
	par.For(N, 8*C, layerNormForward{out, mean, rstd, in, w[:C], b[:C], C, eps})
}

type layerNormForward struct {
	out, mean, rstd, in, w, b []float32
	C                         int
	eps                       float32
}

func (k layerNormForward) Run(lo, hi int) {
	C := k.C
	for i := lo; i < hi; i++ {
		x := k.in[i*C : (i+1)*C]
		var s float64
		for _, v := range x {
			s += float64(v)
		}
		m := s / float64(C)
		var ss float64
		for _, v := range x {
			d := float64(v) - m
			ss += d * d
		}
		mf := float32(m)
		rs := float32(1 / math.Sqrt(ss/float64(C)+float64(k.eps)))
		o, w, b := k.out[i*C:(i+1)*C], k.w, k.b
		for j, v := range x {
			o[j] = (v-mf)*rs*w[j] + b[j]
		}
		k.mean[i], k.rstd[i] = mf, rs
	}
}

// LayerNormBackward accumulates the gradients of LayerNormForward. With
// n = (in - mean)*rstd and dn = dout*w, per row:
//
//	din += rstd * (dn - mean_j(dn) - n * mean_j(dn*n))
//	dw  += sum over rows of dout*n
//	db  += sum over rows of dout
//
// dout, in (N, C); w (C); mean, rstd (N) from the forward pass. din, dw, db
// may each be nil. Row means and column sums are taken in float64.
func LayerNormBackward(din, dw, db, dout, in, w, mean, rstd []float32, N, C int) {
	needDims("LayerNormBackward", N, C)
	need(dout, N*C, "LayerNormBackward dout")
	need(in, N*C, "LayerNormBackward in")
	need(mean, N, "LayerNormBackward mean")
	need(rstd, N, "LayerNormBackward rstd")
	if din != nil {
		need(din, N*C, "LayerNormBackward din")
		need(w, C, "LayerNormBackward w")
		par.For(N, 12*C, layerNormBackwardRows{din, dout, in, w[:C], mean, rstd, C})
	}
	if dw == nil && db == nil {
		return
	}
	needOpt(dw, C, "LayerNormBackward dw")
	needOpt(db, C, "LayerNormBackward db")
	par.For(blocks(C), 4*N*colBlock, layerNormBackwardCols{dw, db, dout, in, mean, rstd, N, C})
}

// layerNormBackwardRows computes din, one row per index.
type layerNormBackwardRows struct {
	din, dout, in, w, mean, rstd []float32
	C                            int
}

func (k layerNormBackwardRows) Run(lo, hi int) {
	C, w := k.C, k.w
	for i := lo; i < hi; i++ {
		x, g := k.in[i*C:(i+1)*C], k.dout[i*C:(i+1)*C]
		m, rs := k.mean[i], k.rstd[i]
		var sd, sdn float64
		for j, v := range x {
			n := (v - m) * rs
			dn := g[j] * w[j]
			sd += float64(dn)
			sdn += float64(dn) * float64(n)
		}
		md, mdn := float32(sd/float64(C)), float32(sdn/float64(C))
		d := k.din[i*C : (i+1)*C]
		for j, v := range x {
			n := (v - m) * rs
			d[j] += rs * (g[j]*w[j] - md - n*mdn)
		}
	}
}

// layerNormBackwardCols computes dw and db (either may be nil), one block
// of colBlock columns per index, summing rows in order in float64.
type layerNormBackwardCols struct {
	dw, db, dout, in, mean, rstd []float32
	N, C                         int
}

func (k layerNormBackwardCols) Run(lo, hi int) {
	C := k.C
	var aw, ab [colBlock]float64
	for blk := lo; blk < hi; blk++ {
		j0, j1 := blk*colBlock, min((blk+1)*colBlock, C)
		cw, cb := aw[:j1-j0], ab[:j1-j0]
		clear(cw)
		clear(cb)
		for i := 0; i < k.N; i++ {
			x, g := k.in[i*C+j0:i*C+j1], k.dout[i*C+j0:i*C+j1]
			m, rs := k.mean[i], k.rstd[i]
			for j, v := range x {
				cw[j] += float64(g[j]) * float64((v-m)*rs)
				cb[j] += float64(g[j])
			}
		}
		if k.dw != nil {
			for j, s := range cw {
				k.dw[j0+j] += float32(s)
			}
		}
		if k.db != nil {
			for j, s := range cb {
				k.db[j0+j] += float32(s)
			}
		}
	}
}
