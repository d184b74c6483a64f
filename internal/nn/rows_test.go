package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// TestRowKernelsMatchGo checks the LayerNorm row kernels and the column
// sums, as the layers call them, bit for bit against their Go definitions
// in rows.go (run row by row or column by column), for widths around
// multiples of the vector width, with huge, tiny and constant rows.
func TestRowKernelsMatchGo(t *testing.T) {
	r := rng.New(50)
	for _, C := range []int{1, 3, 8, 9, 16, 24, 31, 32, 64, 72, 130} {
		N := 5
		in := uniform(r, N*C, 3)
		for j := range C { // row 1: offset and huge; row 2: constant; row 3: tiny
			in[C+j] = 1e30 + in[C+j]*1e25
			in[2*C+j] = 0.7
			in[3*C+j] *= 1e-30
		}
		w, b := uniform(r, C, 1), uniform(r, C, 1)
		out, mean, rstd := make([]float32, N*C), make([]float32, N), make([]float32, N)
		lnRows(out, mean, rstd, in, w, b, 0, N, C, 1e-6)
		for i := range N {
			o := make([]float32, C)
			m, rs := lnRowGo(o, in[i*C:(i+1)*C], w, b, 1e-6)
			if equalBits(o, out[i*C:(i+1)*C]) >= 0 || math.Float32bits(m) != math.Float32bits(mean[i]) || math.Float32bits(rs) != math.Float32bits(rstd[i]) {
				t.Fatalf("C %d row %d: lnRows differs from lnRowGo", C, i)
			}
		}
		g := uniform(r, N*C, 1)
		din, want := garbage(N*C), garbage(N*C)
		lnBackRows(din, g, in, w, mean, rstd, 0, N, C)
		for i := range N {
			lnBackRowGo(want[i*C:(i+1)*C], g[i*C:(i+1)*C], in[i*C:(i+1)*C], w, mean[i], rstd[i])
		}
		if i := equalBits(din, want); i >= 0 {
			t.Fatalf("C %d: lnBackRows differs from lnBackRowGo at %d: %v vs %v", C, i, din[i], want[i])
		}
		dw, db := uniform(r, C, 1), uniform(r, C, 1)
		dw2, db2 := clone(dw), clone(db)
		lnCols8(dw, db, g, in, mean, rstd, N, C, 0)
		lnColsGo(dw2, db2, g, in, mean, rstd, N, C, 0)
		if equalBits(dw, dw2) >= 0 || equalBits(db, db2) >= 0 {
			t.Fatalf("C %d: lnCols8 differs from lnColsGo", C)
		}
		// column sums over a strided block starting inside a row
		dst := uniform(r, C, 1)
		dst2 := clone(dst)
		colSums8(dst, g[1:], N-1, C)
		colSumsGo(dst2, g[1:], N-1, C)
		if i := equalBits(dst, dst2); i >= 0 {
			t.Fatalf("C %d: colSums8 differs from colSumsGo at %d", C, i)
		}
	}
}

// TestSum8Order checks sum8 and sqDev8 against the order their comment
// states, written out for 19 elements with exact float64 arithmetic on
// values chosen so that the order matters.
func TestSum8Order(t *testing.T) {
	x := make([]float32, 19)
	for j := range x {
		x[j] = float32(math.Ldexp(1+float64(j)/64, 24*(j%3)-20))
	}
	var s [8]float64
	for j := range 16 {
		s[j%8] += float64(x[j])
	}
	want := ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
	want = ((want + float64(x[16])) + float64(x[17])) + float64(x[18])
	if got := sum8(x); got != want {
		t.Errorf("sum8 = %v, want %v", got, want)
	}
	if got := sum8(x[:3]); got != (float64(x[0])+float64(x[1]))+float64(x[2]) {
		t.Errorf("sum8 of 3 = %v", got)
	}
}
