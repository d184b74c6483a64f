package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

func cpuHasAVX512() bool { return cpu.X86.HasAVX512F }

// forEachKernel runs f once per kernel usable here, the way blake2b's
// TestHashes walks its SIMD levels.
func forEachKernel(t *testing.T, f func(t *testing.T, kern *kernel)) {
	t.Helper()
	for _, kern := range usable {
		t.Run(kern.name, func(t *testing.T) { f(t, kern) })
	}
}

// on returns kern's multiply on threads threads with sgemmFunc's
// signature.
func on(kern *kernel, threads int) sgemmFunc {
	return func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		kern.mul(threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

func TestKernelsListed(t *testing.T) {
	names := Kernels()
	t.Logf("kernels usable here: %v (default %s)", names, Kernel())
	if !slices.Contains(names, "purego") {
		t.Errorf("Kernels() = %v lacks purego", names)
	}
	if names[0] != Kernel() {
		t.Errorf("default kernel %s is not Kernels()[0] = %s", Kernel(), names[0])
	}
	for _, name := range []string{"avx512", "avx2"} {
		if !slices.Contains(names, name) {
			t.Logf("kernel %s not tested: %s", name, unusable[name])
		}
	}
	for _, name := range names {
		if f, err := Using(name); err != nil || f == nil {
			t.Errorf("Using(%q): %v", name, err)
		}
	}
	if _, err := Using("nonesuch"); err == nil {
		t.Error("Using(nonesuch) succeeded")
	}
	for name := range unusable {
		if _, err := Using(name); err == nil {
			t.Errorf("Using(%q) succeeded although %s", name, unusable[name])
		}
	}
}

// TestUsingRunsTheNamedKernel checks that Using(name) multiplies with that
// kernel: the bits of a product that every kernel rounds differently
// match the kernel's own, and Sgemm is the default kernel.
func TestUsingRunsTheNamedKernel(t *testing.T) {
	m, n, k := 37, 41, 300
	rng := rand.New(rand.NewPCG(8, 9))
	a, b := randMatrix(m, k, k, rng, false), randMatrix(k, n, n, rng, false)
	run := func(mul Func) []uint32 {
		c := make([]float32, m*n)
		mul(2, false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		return f32bits(c)
	}
	for _, kern := range usable {
		f, err := Using(kern.name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(run(f), run(kern.mul)) {
			t.Errorf("Using(%q) differs from kernel %s", kern.name, kern.name)
		}
	}
	if !slices.Equal(run(Sgemm), run(usable[0].mul)) {
		t.Errorf("Sgemm differs from the default kernel %s", Kernel())
	}
}

// TestAVX512Guard checks that the AVX-512 kernel is offered exactly when
// the CPU has AVX-512F, so that it never runs on a CPU without it.
func TestAVX512Guard(t *testing.T) {
	has := slices.Contains(Kernels(), "avx512")
	if !has {
		t.Skipf("no AVX-512 here (%s): the avx512 kernel is not offered and not tested", unusable["avx512"])
	}
	if !cpuHasAVX512() {
		t.Fatal("avx512 kernel offered on a CPU without AVX-512F")
	}
}

type gemmCase struct {
	transA, transB   bool
	m, n, k          int
	alpha, beta      float32
	padA, padB, padC int // extra elements per row beyond the width
	nanC             bool
	guardedA         bool // A and B end at an inaccessible page
}

func (tc gemmCase) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s/%dx%dx%d/a%g/b%g/pad%d,%d,%d", t(tc.transA), t(tc.transB), tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.padA, tc.padB, tc.padC)
}

const guardLen = 37

var guardVal = float32(math.Float32frombits(0x7fc0beef)) // a NaN with a payload

// sgemmFunc is a multiply with its thread count fixed (see on).
type sgemmFunc func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// runCase multiplies tc with mul, checks C against a float64 reference,
// and checks that nothing outside C's written region changed and that A
// and B did not change. It returns C.
func runCase(t *testing.T, tc gemmCase, rng *rand.Rand, mul sgemmFunc) []float32 {
	t.Helper()
	ar, ac := tc.m, tc.k
	if tc.transA {
		ar, ac = tc.k, tc.m
	}
	br, bc := tc.k, tc.n
	if tc.transB {
		br, bc = tc.n, tc.k
	}
	lda, ldb, ldc := max(1, ac+tc.padA), max(1, bc+tc.padB), max(1, tc.n+tc.padC)
	a := randMatrix(ar, ac, lda, rng, tc.guardedA)
	b := randMatrix(br, bc, ldb, rng, tc.guardedA)
	a0, b0 := slices.Clone(a), slices.Clone(b)

	// C sits in the middle of a buffer whose other elements, including the
	// gaps between rows, hold guardVal.
	clen := 0
	if tc.m > 0 {
		clen = (tc.m-1)*ldc + tc.n
	}
	full := make([]float32, clen+2*guardLen)
	for i := range full {
		full[i] = guardVal
	}
	c := full[guardLen : guardLen+clen]
	inC := func(idx int) bool { return idx%ldc < tc.n }
	for i := range c {
		if inC(i) {
			if tc.nanC {
				c[i] = float32(math.NaN())
			} else {
				c[i] = float32(rng.Float64()*2 - 1)
			}
		}
	}
	want, mag := refGemm(tc, a, lda, b, ldb, c, ldc)

	mul(tc.transA, tc.transB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)

	// The bound for a float32 dot product of length k with float32 steps.
	tol := float64(tc.k+3) * 0x1p-23 * 2
	bad := 0
	for i := range full {
		j := i - guardLen
		got := full[i]
		if j < 0 || j >= clen || !inC(j) {
			if math.Float32bits(got) != math.Float32bits(guardVal) {
				t.Fatalf("%v: element %d outside C (offset %d) overwritten with %g", tc, i, j, got)
			}
			continue
		}
		w := want[j]
		if math.IsNaN(float64(got)) || !(math.Abs(float64(got)-w) <= tol*mag[j]+1e-30) {
			if bad++; bad <= 3 {
				t.Errorf("%v: C(%d,%d) = %g, want %g (|diff| %g, bound %g)", tc, j/ldc, j%ldc, got, w, math.Abs(float64(got)-w), tol*mag[j])
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%v: %d wrong elements", tc, bad)
	}
	if !slices.Equal(f32bits(a), f32bits(a0)) || !slices.Equal(f32bits(b), f32bits(b0)) {
		t.Fatalf("%v: A or B modified", tc)
	}
	return c
}

func f32bits(x []float32) []uint32 {
	u := make([]uint32, len(x))
	for i, v := range x {
		u[i] = math.Float32bits(v)
	}
	return u
}

// randMatrix returns a rows x cols matrix with row stride ld, values in
// [-1, 1) and guardVal in the padding. With guarded (Linux), its last
// element is the last one before an inaccessible page, so that a read past
// the end faults.
func randMatrix(rows, cols, ld int, rng *rand.Rand, guarded bool) []float32 {
	n := 0
	if rows > 0 && cols > 0 {
		n = (rows-1)*ld + cols
	}
	var x []float32
	if guarded {
		x = guardedSlice(n)
	} else {
		x = make([]float32, n)
	}
	for i := range x {
		if i%ld < cols {
			x[i] = float32(rng.Float64()*2 - 1)
		} else {
			x[i] = guardVal
		}
	}
	return x
}

// refGemm computes alpha*op(A)*op(B) + beta*C in float64, with beta = 0
// ignoring C, and, per element, the sum of the magnitudes of the terms
// (the scale of rounding errors).
func refGemm(tc gemmCase, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) (want, mag []float64) {
	want = make([]float64, len(c))
	mag = make([]float64, len(c))
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.n; j++ {
			var s, sm float64
			for p := 0; p < tc.k; p++ {
				var x, y float64
				if tc.transA {
					x = float64(a[p*lda+i])
				} else {
					x = float64(a[i*lda+p])
				}
				if tc.transB {
					y = float64(b[j*ldb+p])
				} else {
					y = float64(b[p*ldb+j])
				}
				s += x * y
				sm += math.Abs(x * y)
			}
			if tc.alpha == 0 {
				s, sm = 0, 0
			}
			s *= float64(tc.alpha)
			sm *= math.Abs(float64(tc.alpha))
			if tc.beta != 0 {
				cv := float64(c[i*ldc+j])
				s += float64(tc.beta) * cv
				sm += math.Abs(float64(tc.beta) * cv)
			}
			want[i*ldc+j] = s
			mag[i*ldc+j] = sm
		}
	}
	return want, mag
}

var transCombos = [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}

// TestSgemmSmall runs every kernel on all small shapes with dimensions in
// 1..17, 33 and 65 (a subset at the larger ones), every transposition,
// with and without padding of the strides.
func TestSgemmSmall(t *testing.T) {
	dims := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 65}
	if testing.Short() {
		dims = []int{1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 33, 65}
	}
	forEachKernel(t, func(t *testing.T, kern *kernel) {
		mul := on(kern, runtime.GOMAXPROCS(0))
		rng := rand.New(rand.NewPCG(1, 2))
		for _, m := range dims {
			for _, n := range dims {
				for _, k := range dims {
					if m*n*k > 17*17*33 && (m+n+k)%3 != 0 {
						continue // thin out the largest
					}
					tr := transCombos[(m+2*n+3*k)%4]
					tc := gemmCase{transA: tr[0], transB: tr[1], m: m, n: n, k: k, alpha: 1, beta: 0, nanC: true}
					if (m+n+k)%2 == 1 {
						tc.padA, tc.padB, tc.padC = 3, 1, 5
						tc.alpha, tc.beta, tc.nanC = -0.75, 1.5, false
					}
					runCase(t, tc, rng, mul)
				}
			}
		}
	})
}

// TestSgemmAwkward covers 1x1x1, 7x13x5, every transposition and
// alpha/beta combination, strides wider than the matrices, and reads that
// would run past the end of A or B into an inaccessible page.
func TestSgemmAwkward(t *testing.T) {
	type ab struct {
		alpha, beta float32
		nanC        bool
	}
	abs := []ab{{1, 0, true}, {1, 1, false}, {-0.5, 2, false}, {0.7, 0, true}, {0, 0.5, false}, {0, 0, true}, {2, -1, false}}
	shapes := [][3]int{{1, 1, 1}, {7, 13, 5}, {1, 40, 3}, {40, 1, 3}, {3, 3, 70}, {0, 5, 5}, {5, 0, 5}, {5, 5, 0}, {6, 16, 4}, {8, 32, 4}, {12, 48, 9}}
	forEachKernel(t, func(t *testing.T, kern *kernel) {
		mul := on(kern, runtime.GOMAXPROCS(0))
		rng := rand.New(rand.NewPCG(3, 4))
		for _, s := range shapes {
			for _, tr := range transCombos {
				for i, x := range abs {
					for _, pad := range []int{0, 3} {
						tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2],
							alpha: x.alpha, beta: x.beta, nanC: x.nanC,
							padA: pad, padB: pad * 2, padC: pad + i%2, guardedA: pad == 0}
						runCase(t, tc, rng, mul)
					}
				}
			}
		}
	})
}

// TestSgemmBlocks runs each kernel at sizes just off its own tile and
// cache-block sizes, so that every path of the blocked algorithm (packed
// and in-place operands, partial tiles and blocks, several depth blocks
// with beta then 1) is taken.
func TestSgemmBlocks(t *testing.T) {
	forEachKernel(t, func(t *testing.T, kern *kernel) {
		if kern.full != nil {
			t.Skip("external library: no blocks of ours")
		}
		mul := on(kern, 1)
		rng := rand.New(rand.NewPCG(5, 6))
		mr, nr, kc, mc := kern.mr, kern.nr, kern.kc, kern.mc
		shapes := [][3]int{
			{mr - 1, nr + 1, kc + 1},
			{mr + 1, 4*nr + 1, kc - 1},        // packed A
			{2*mr + 1, 4*nr + 3, 2*kc + 3},    // packed A and B, three depth blocks
			{mc + mr + 1, 5*nr - 1, kc},       // two A blocks
			{mc - 1, 2 * nr, 70},              // in-place A and B
			{3*mr + 2, 129, (1 << 14) / 129},  // B just in place
			{3*mr + 2, 129, (1<<14)/129 + 1},  // B just packed
			{2, 2*bGroup*nr + 1, 3},           // B packed in three groups
			{2*mr - 1, bGroup*nr - 1, kc + 5}, // one partial group
		}
		for _, s := range shapes {
			for ti, tr := range transCombos {
				tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2], alpha: 1.25, beta: -0.5, padA: ti, padB: 2 * ti, padC: 1}
				if ti%2 == 0 {
					tc.beta, tc.nanC = 0, true
				}
				runCase(t, tc, rng, mul)
			}
		}
	})
}

// TestThreadsBitIdentical checks that every kernel gives bit-identical
// results for any number of threads, on shapes large enough to be split.
func TestThreadsBitIdentical(t *testing.T) {
	shapes := [][3]int{{67, 131, 300}, {256, 96, 32}, {9, 700, 257}, {300, 20, 300}, {64, 512, 64}, {130, 600, 300}, {700, 150, 40}}
	forEachKernel(t, func(t *testing.T, kern *kernel) {
		if kern.full != nil {
			t.Skip("external library: its threading is its own")
		}
		for si, s := range shapes {
			tr := transCombos[si%4]
			tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2], alpha: 0.5, beta: 1, padC: si}
			var first []uint32
			for _, th := range []int{1, 2, 3, 4, 7} {
				c := runCase(t, tc, rand.New(rand.NewPCG(7, uint64(si))), on(kern, th))
				if first == nil {
					first = f32bits(c)
				} else if !slices.Equal(first, f32bits(c)) {
					t.Fatalf("%v: %d threads differ from 1 thread", tc, th)
				}
			}
		}
	})
}

// TestSplit checks the work plan (no more items than bands of tiles, one
// item for one thread, at least one per thread when there are enough
// tiles; both kinds of band chosen somewhere) and that shares cover a
// range exactly.
func TestSplit(t *testing.T) {
	kinds := map[bool]int{}
	for threads := 1; threads <= 4; threads++ {
		for _, mt := range []int{1, 2, 3, 5, 12, 43, 256} {
			for _, nt := range []int{1, 2, 3, 5, 12, 32, 128} {
				for _, direct := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					g := &gemmCall{kern: kernelAVX2Shape, k: 512, directA: direct[0], directB: direct[1]}
					rows, items := g.plan(threads, mt, nt)
					limit := nt
					if rows {
						limit = mt
					}
					if items < 1 || items > limit || threads == 1 && items != 1 {
						t.Fatalf("plan(%d, %d, %d) = %v, %d", threads, mt, nt, rows, items)
					}
					if threads > 1 && min(mt, nt) >= threads && items < threads {
						t.Fatalf("plan(%d, %d, %d) = %v, %d: fewer items than threads", threads, mt, nt, rows, items)
					}
					if items > 1 {
						kinds[rows]++
					}
				}
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("plans by rows and by columns: %v", kinds)
	}
	for parts := 1; parts <= 7; parts++ {
		next := 3
		for w := 0; w < parts; w++ {
			lo, hi := share(3, 20, parts, w)
			if lo != next || hi < lo {
				t.Fatalf("share(3, 20, %d, %d) = %d, %d", parts, w, lo, hi)
			}
			next = hi
		}
		if next != 20 {
			t.Fatalf("shares of [3, 20) in %d parts end at %d", parts, next)
		}
	}
}

func TestArgChecks(t *testing.T) {
	x := make([]float32, 100)
	cases := []struct {
		name string
		f    func()
		want string
	}{
		{"negative", func() { Sgemm(1, false, false, -1, 2, 2, 1, x, 2, x, 2, 0, x, 2) }, errNegative},
		{"lda", func() { Sgemm(1, false, false, 2, 2, 3, 1, x, 2, x, 2, 0, x, 2) }, errLead},
		{"ldb", func() { Sgemm(1, false, true, 2, 4, 3, 1, x, 3, x, 2, 0, x, 4) }, errLead},
		{"ldc", func() { Sgemm(1, false, false, 2, 4, 3, 1, x, 3, x, 4, 0, x, 3) }, errLead},
		{"shortA", func() { Sgemm(1, false, false, 10, 2, 10, 1, x[:99], 10, x, 2, 0, x, 2) }, errShortAB},
		{"shortC", func() { Sgemm(1, false, false, 2, 50, 1, 1, x, 1, x, 50, 0, x[:99], 50) }, errShortC},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("%s: panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		}()
	}
}

// TestThreadsBelowOne checks that a thread count below 1 runs as 1.
func TestThreadsBelowOne(t *testing.T) {
	tc := gemmCase{m: 130, n: 600, k: 300, alpha: 1, beta: 0, nanC: true}
	want := f32bits(runCase(t, tc, rand.New(rand.NewPCG(9, 9)), on(usable[0], 1)))
	for _, th := range []int{0, -2} {
		if got := f32bits(runCase(t, tc, rand.New(rand.NewPCG(9, 9)), func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
			Sgemm(th, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		})); !slices.Equal(got, want) {
			t.Errorf("threads %d differ from 1 thread", th)
		}
	}
}

// microRef returns a micro-kernel for any mr x nr tile that follows the
// microFunc contract with plain loops.
func microRef(mr, nr int) microFunc {
	return func(k int, a []float32, rsa, csa int, b []float32, rsb int, c []float32, ldc int, alpha, beta float32) {
		for i := 0; i < mr; i++ {
			for j := 0; j < nr; j++ {
				var acc float32
				for p := 0; p < k; p++ {
					acc += a[i*rsa+p*csa] * b[p*rsb+j]
				}
				if beta == 0 {
					c[i*ldc+j] = alpha * acc
				} else {
					c[i*ldc+j] = alpha*acc + beta*c[i*ldc+j]
				}
			}
		}
	}
}

// TestBlockedTileShapes runs the blocked algorithm with every tile and
// block shape of the kernels (AVX-512's 8x32 included, which this machine
// may not run) and some odd ones, over a portable micro-kernel, so that
// packing and edge handling are tested for all of them everywhere.
func TestBlockedTileShapes(t *testing.T) {
	shapes := []kernel{
		{name: "avx512-shape", mr: 8, nr: 32, kc: 192, mc: 256},
		{name: "avx2-shape", mr: 6, nr: 16, kc: 256, mc: 264},
		{name: "purego-shape", mr: 4, nr: 4, kc: 256, mc: 128},
		{name: "odd", mr: 3, nr: 5, kc: 7, mc: 10},
	}
	sizes := [][3]int{{1, 1, 1}, {7, 13, 5}, {17, 33, 9}, {70, 140, 200}, {33, 300, 20}, {260, 40, 11}}
	for _, ks := range shapes {
		kern := ks
		kern.micro = microRef(kern.mr, kern.nr)
		if kern.nr%8 == 0 {
			kern.packTrans = archPackTrans // nil without assembly
		}
		if kern.mr == 6 {
			kern.packA6 = archPackA6
		}
		rng := rand.New(rand.NewPCG(21, 22))
		for _, threads := range []int{1, 3} {
			mul := func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
				if m > 0 && n > 0 {
					sgemm(&kern, threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
				}
			}
			for si, s := range sizes {
				for ti, tr := range transCombos {
					tc := gemmCase{transA: tr[0], transB: tr[1], m: s[0], n: s[1], k: s[2], alpha: 0.75, beta: 0.5, padA: si % 3, padB: ti, padC: 2}
					if (si+ti)%2 == 0 {
						tc.beta, tc.nanC = 0, true
					}
					runCase(t, tc, rng, mul)
				}
			}
		}
	}
}

// kernelAVX2Shape has the AVX2 kernel's blocking, for planning tests on
// any machine.
var kernelAVX2Shape = &kernel{name: "avx2-shape", mr: 6, nr: 16, kc: 256, mc: 264}
