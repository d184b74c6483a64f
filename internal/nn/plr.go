package nn

import (
	"math"

	"decoreg/internal/par"
)

// The periodic embedding with per-feature linear maps of Gorishniy et al.,
// "On Embeddings for Numerical Features in Tabular Deep Learning" (2022),
// PLR without its ReLU (the caller applies ReLUInPlace and ReLUMask, as
// for the encoder's Linear layers). For each of the F features of a row x,
// with K frequencies c_j and D outputs per feature,
//
//	p_j = [cos(2π c_j1 x_j) .. cos(2π c_jK x_j), sin(2π c_j1 x_j) .. sin(2π c_jK x_j)]
//	out_j = W_j p_j + b_j
//
// (the order of rtdl_num_embeddings' PeriodicEmbeddings, cos then sin),
// and the row's output is out_1 .. out_F concatenated. The maps W_j are
// the features' own (not shared: PLR, not "PLR lite").
//
//	in (N, F), freq (F, K), w (F, D, 2K), b (F, D), out (N, F*D),
//	feat (N, F*2K): the p_j of every row, kept for the backward pass.
//
// The phases 2π c x, their sines and cosines and the sums over the 2K
// periodic features are computed in float64.

// PLRForward computes out and feat from in as described above.
func PLRForward(threads int, out, feat, in, freq, w, b []float32, N, F, K, D int) {
	needDims("PLRForward", N, F, K, D)
	need(out, N*F*D, "PLRForward out")
	need(feat, N*F*2*K, "PLRForward feat")
	need(in, N*F, "PLRForward in")
	need(freq, F*K, "PLRForward freq")
	need(w, F*D*2*K, "PLRForward w")
	need(b, F*D, "PLRForward b")
	par.For(threads, N, F*K*(40+2*D), plrForward{out, feat, in, freq, w, b, F, K, D})
}

type plrForward struct {
	out, feat, in, freq, w, b []float32
	F, K, D                   int
}

func (k plrForward) Run(lo, hi int) {
	F, K, D := k.F, k.K, k.D
	K2 := 2 * K
	for i := lo; i < hi; i++ {
		for j := range F {
			x := float64(k.in[i*F+j])
			fr := k.freq[j*K : (j+1)*K]
			p := k.feat[(i*F+j)*K2 : (i*F+j+1)*K2]
			for l, c := range fr {
				s, co := math.Sincos(2 * math.Pi * float64(c) * x)
				p[l], p[K+l] = float32(co), float32(s)
			}
			o := k.out[i*F*D+j*D : i*F*D+(j+1)*D]
			for r := range o {
				wr := k.w[(j*D+r)*K2 : (j*D+r+1)*K2]
				acc := float64(k.b[j*D+r])
				for m, v := range p {
					acc += float64(wr[m]) * float64(v)
				}
				o[r] = float32(acc)
			}
		}
	}
}

// PLRBackward computes the gradients of PLRForward for dout (N, F*D), the
// gradient of out (already masked by the caller's ReLU):
//
//	din   (N, F)     overwritten
//	dfreq (F, K)     added to
//	dw    (F, D, 2K) added to
//	db    (F, D)     added to
//
// Any of them may be nil. dfeat (N, F*2K) is scratch, needed (and
// overwritten) when din or dfreq is wanted. feat is PLRForward's. Sums
// over rows (the parameter gradients) and over the periodic features are
// accumulated in float64; the work is split over rows for din and over
// parameters for the rest, so results do not depend on threads.
func PLRBackward(threads int, din, dfreq, dw, db, dfeat, dout, feat, in, freq, w []float32, N, F, K, D int) {
	needDims("PLRBackward", N, F, K, D)
	need(dout, N*F*D, "PLRBackward dout")
	if din != nil || dfreq != nil {
		need(dfeat, N*F*2*K, "PLRBackward dfeat")
		need(feat, N*F*2*K, "PLRBackward feat")
		need(w, F*D*2*K, "PLRBackward w")
		needOpt(din, N*F, "PLRBackward din")
		if din != nil {
			need(freq, F*K, "PLRBackward freq")
		}
		if dfreq != nil {
			need(dfreq, F*K, "PLRBackward dfreq")
			need(in, N*F, "PLRBackward in")
		}
		par.For(threads, N, F*D*2*K, plrBackRows{din, dfeat, dout, feat, freq, w, F, K, D})
		if dfreq != nil {
			par.For(threads, F*K, N, plrBackFreq{dfreq, dfeat, in, N, F, K})
		}
	}
	if dw != nil || db != nil {
		needOpt(dw, F*D*2*K, "PLRBackward dw")
		needOpt(db, F*D, "PLRBackward db")
		if dw != nil {
			need(feat, N*F*2*K, "PLRBackward feat")
		}
		par.For(threads, F*D, N*2*K, plrBackParams{dw, db, dout, feat, N, F, K, D})
	}
}

// plrBackRows sets, for rows lo..hi-1, dfeat's first K values of every
// feature to the gradient of the phase 2π c x (dz) and din to its
// gradient: dp = Wᵀ dout_j, dz_l = -sin(z_l) dp_l + cos(z_l) dp_{K+l},
// din_j = 2π sum_l c_l dz_l.
type plrBackRows struct {
	din, dfeat, dout, feat, freq, w []float32
	F, K, D                         int
}

func (k plrBackRows) Run(lo, hi int) {
	F, K, D := k.F, k.K, k.D
	K2 := 2 * K
	var acc [colBlock]float64
	for i := lo; i < hi; i++ {
		for j := range F {
			g := k.dout[i*F*D+j*D : i*F*D+(j+1)*D]
			dp := k.dfeat[(i*F+j)*K2 : (i*F+j+1)*K2]
			for m0 := 0; m0 < K2; m0 += colBlock {
				m1 := min(m0+colBlock, K2)
				a := acc[:m1-m0]
				clear(a)
				for r, gr := range g {
					wr := k.w[(j*D+r)*K2+m0 : (j*D+r)*K2+m1]
					for m, v := range wr {
						a[m] += float64(gr) * float64(v)
					}
				}
				for m, v := range a {
					dp[m0+m] = float32(v)
				}
			}
			p := k.feat[(i*F+j)*K2 : (i*F+j+1)*K2]
			var dx float64
			for l := range K {
				co, s := float64(p[l]), float64(p[K+l])
				dz := -s*float64(dp[l]) + co*float64(dp[K+l])
				dp[l] = float32(dz)
				if k.din != nil {
					dx += float64(k.freq[j*K+l]) * float64(dp[l])
				}
			}
			if k.din != nil {
				k.din[i*F+j] = float32(2 * math.Pi * dx)
			}
		}
	}
}

// plrBackFreq owns dfreq[lo..hi-1] (index j*K+l): dfreq += 2π sum_i x_ij dz_ijl.
type plrBackFreq struct {
	dfreq, dfeat, in []float32
	N, F, K          int
}

func (k plrBackFreq) Run(lo, hi int) {
	F, K := k.F, k.K
	for t := lo; t < hi; t++ {
		j, l := t/K, t%K
		var s float64
		for i := range k.N {
			s += float64(k.in[i*F+j]) * float64(k.dfeat[(i*F+j)*2*K+l])
		}
		k.dfreq[t] += float32(2 * math.Pi * s)
	}
}

// plrBackParams owns the rows lo..hi-1 (index j*D+r) of dw and db:
// dw_jr += sum_i dout_ijr p_ij, db_jr += sum_i dout_ijr.
type plrBackParams struct {
	dw, db, dout, feat []float32
	N, F, K, D         int
}

func (k plrBackParams) Run(lo, hi int) {
	F, K, D := k.F, k.K, k.D
	K2 := 2 * K
	var acc [colBlock]float64
	for t := lo; t < hi; t++ {
		j := t / D
		if k.db != nil {
			var s float64
			for i := range k.N {
				s += float64(k.dout[i*F*D+t])
			}
			k.db[t] += float32(s)
		}
		if k.dw == nil {
			continue
		}
		for m0 := 0; m0 < K2; m0 += colBlock {
			m1 := min(m0+colBlock, K2)
			a := acc[:m1-m0]
			clear(a)
			for i := range k.N {
				g := float64(k.dout[i*F*D+t])
				p := k.feat[(i*F+j)*K2+m0 : (i*F+j)*K2+m1]
				for m, v := range p {
					a[m] += g * float64(v)
				}
			}
			d := k.dw[t*K2+m0 : t*K2+m1]
			for m, v := range a {
				d[m] += float32(v)
			}
		}
	}
}
