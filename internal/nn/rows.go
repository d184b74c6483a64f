package nn

import "math"

// The row kernels of LayerNorm and the column sums of the backward passes.
// Each has a Go definition here and, where the build has one, a vector
// kernel that computes the same bits: float64 sums of a row are taken in 8
// interleaved partial sums, s_l over the elements j = l (mod 8) below the
// last multiple of 8, combined as ((s0+s4)+(s2+s6)) + ((s1+s5)+(s3+s7)),
// then the remaining elements added in order (see sum8); column sums add
// the rows in order; element-wise float32 arithmetic rounds every product
// (explicit conversions keep the compiler from fusing multiply-adds).

// reduce8 combines 8 partial sums in the vector kernels' order.
func reduce8(s *[8]float64) float64 {
	return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
}

// sum8 returns the sum of float64(x[j]) in the order described above.
func sum8(x []float32) float64 {
	var s [8]float64
	n8 := len(x) &^ 7
	for j := 0; j < n8; j += 8 {
		b := (*[8]float32)(x[j : j+8])
		for l, v := range b {
			s[l] += float64(v)
		}
	}
	r := reduce8(&s)
	for _, v := range x[n8:] {
		r += float64(v)
	}
	return r
}

// sqDev8 returns the sum of (float64(x[j]) - m)^2 in sum8's order.
func sqDev8(x []float32, m float64) float64 {
	var s [8]float64
	n8 := len(x) &^ 7
	for j := 0; j < n8; j += 8 {
		b := (*[8]float32)(x[j : j+8])
		for l, v := range b {
			d := float64(v) - m
			s[l] += float64(d * d)
		}
	}
	r := reduce8(&s)
	for _, v := range x[n8:] {
		d := float64(v) - m
		r += float64(d * d)
	}
	return r
}

// lnRowGo normalises one row: it returns the mean mf and 1/sqrt(var+eps)
// rs of x (float64 sums) and sets o[j] = (x[j]-mf)*rs*w[j] + b[j].
func lnRowGo(o, x, w, b []float32, eps float32) (mf, rs float32) {
	C := len(x)
	o, w, b = o[:C], w[:C], b[:C]
	m := sum8(x) / float64(C)
	ss := sqDev8(x, m)
	mf = float32(m)
	rs = float32(1 / math.Sqrt(ss/float64(C)+float64(eps)))
	for j, v := range x {
		o[j] = float32(float32((v-mf)*rs)*w[j]) + b[j]
	}
	return mf, rs
}

// lnBackRowGo sets one row of LayerNorm's input gradient: with
// n = (x-m)*rs and dn = g*w, d[j] = rs*((dn[j] - mean(dn)) - n[j]*mean(dn*n)),
// the means of float64 sums in sum8's order.
func lnBackRowGo(d, g, x, w []float32, m, rs float32) {
	C := len(x)
	d, g, w = d[:C], g[:C], w[:C]
	var s, t [8]float64
	n8 := C &^ 7
	for j := 0; j < n8; j += 8 {
		for l := range 8 {
			n := float32((x[j+l] - m) * rs)
			dn := float32(g[j+l] * w[j+l])
			s[l] += float64(dn)
			t[l] += float64(float64(dn) * float64(n))
		}
	}
	sd, sdn := reduce8(&s), reduce8(&t)
	for j := n8; j < C; j++ {
		n := float32((x[j] - m) * rs)
		dn := float32(g[j] * w[j])
		sd += float64(dn)
		sdn += float64(float64(dn) * float64(n))
	}
	md, mdn := float32(sd/float64(C)), float32(sdn/float64(C))
	for j, v := range x {
		n := float32((v - m) * rs)
		dn := float32(g[j] * w[j])
		d[j] = float32(rs * float32(float32(dn-md)-float32(n*mdn)))
	}
}

// colSumsGo sets dst[j] += float32(sum over r < rows of float64(src[r*stride+j]))
// for j < len(dst), adding the rows in order.
func colSumsGo(dst, src []float32, rows, stride int) {
	width := len(dst)
	var acc [colBlock]float64
	for j0 := 0; j0 < width; j0 += colBlock {
		j1 := min(j0+colBlock, width)
		a := acc[:j1-j0]
		clear(a)
		for r := 0; r < rows; r++ {
			row := src[r*stride+j0 : r*stride+j1]
			for j, x := range row {
				a[j] += float64(x)
			}
		}
		d := dst[j0:j1]
		for j, s := range a {
			d[j] += float32(s)
		}
	}
}

// lnColsGo accumulates LayerNorm's parameter gradients over rows < N for
// the columns j0+j, j < len(dw) (or len(db)): dw[j] += sum of g*n,
// db[j] += sum of g, with n = (x - mean)*rstd, float64 sums adding the
// rows in order. Either of dw, db may be nil.
func lnColsGo(dw, db, dout, in, mean, rstd []float32, N, C, j0 int) {
	width := max(len(dw), len(db)) // either may be nil
	var aw, ab [colBlock]float64
	for c0 := 0; c0 < width; c0 += colBlock {
		c1 := min(c0+colBlock, width)
		cw, cb := aw[:c1-c0], ab[:c1-c0]
		clear(cw)
		clear(cb)
		for i := 0; i < N; i++ {
			x, g := in[i*C+j0+c0:i*C+j0+c1], dout[i*C+j0+c0:i*C+j0+c1]
			g = g[:len(x)]
			m, rs := mean[i], rstd[i]
			for j, v := range x {
				cw[j] += float64(float64(g[j]) * float64(float32((v-m)*rs)))
				cb[j] += float64(g[j])
			}
		}
		if dw != nil {
			for j, s := range cw {
				dw[c0+j] += float32(s)
			}
		}
		if db != nil {
			for j, s := range cb {
				db[c0+j] += float32(s)
			}
		}
	}
}

// lnRows runs lnRowGo (or its vector twin) on rows lo..hi-1 of in (N, C),
// writing out, mean and rstd. The caller has checked the lengths.
func lnRows(out, mean, rstd, in, w, b []float32, lo, hi, C int, eps float32) {
	if hi <= lo || C == 0 {
		return
	}
	if useAVX2 && C%8 == 0 {
		lnForwardAVX2(&out[lo*C], &mean[lo], &rstd[lo], &in[lo*C], &w[0], &b[0], hi-lo, C, eps)
		return
	}
	for i := lo; i < hi; i++ {
		mean[i], rstd[i] = lnRowGo(out[i*C:(i+1)*C], in[i*C:(i+1)*C], w, b, eps)
	}
}

// lnBackRows runs lnBackRowGo (or its vector twin) on rows lo..hi-1.
func lnBackRows(din, dout, in, w, mean, rstd []float32, lo, hi, C int) {
	if hi <= lo || C == 0 {
		return
	}
	if useAVX2 && C%8 == 0 {
		lnBackwardAVX2(&din[lo*C], &dout[lo*C], &in[lo*C], &w[0], &mean[lo], &rstd[lo], hi-lo, C)
		return
	}
	for i := lo; i < hi; i++ {
		lnBackRowGo(din[i*C:(i+1)*C], dout[i*C:(i+1)*C], in[i*C:(i+1)*C], w, mean[i], rstd[i])
	}
}

// colSums8 is colSumsGo with the whole blocks of 8 columns in the vector
// kernel.
func colSums8(dst, src []float32, rows, stride int) {
	width := len(dst)
	if useAVX2 && width >= 8 && rows > 0 {
		w8 := width &^ 7
		if len(src) < (rows-1)*stride+w8 {
			panic("nn: colSums8 src shorter than its shape")
		}
		colSumsAVX2(&dst[0], &src[0], rows, stride, w8)
		dst, src = dst[w8:], src[w8:]
	}
	colSumsGo(dst, src, rows, stride)
}

// lnCols8 is lnColsGo with the whole blocks of 8 columns in the vector
// kernel (when both dw and db are wanted).
func lnCols8(dw, db, dout, in, mean, rstd []float32, N, C, j0 int) {
	width := max(len(dw), len(db))
	if useAVX2 && dw != nil && db != nil && width >= 8 && N > 0 {
		w8 := width &^ 7
		if len(in) < (N-1)*C+j0+w8 || len(dout) < (N-1)*C+j0+w8 || len(mean) < N || len(rstd) < N {
			panic("nn: lnCols8 operand shorter than its shape")
		}
		lnColsAVX2(&dw[0], &db[:w8][0], &dout[j0], &in[j0], &mean[0], &rstd[0], N, C, w8)
		if width == w8 {
			return
		}
		dw, db, j0 = dw[w8:], db[w8:], j0+w8
	}
	lnColsGo(dw, db, dout, in, mean, rstd, N, C, j0)
}
