package gemm

import (
	"fmt"
	"strings"
)

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(X) is X or its transpose, on up to threads goroutines
// (threads < 1 counts as 1; small products run on the calling goroutine
// whatever threads says). op(A) is m x k, op(B) is k x n and C is m x n;
// lda, ldb and ldc are the row strides of A, B and C as stored. When beta
// is 0, C is not read (NaNs in C do not propagate). When alpha is 0 or k
// is 0, A and B are not read either.
//
// Sgemm runs the default kernel, Kernel(). The result depends on the
// kernel but not on the number of threads: every element of C is computed
// by the same operations in the same order whatever the thread count.
func Sgemm(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	usable[0].mul(threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Func is a matrix multiply with the signature and the contract of Sgemm.
type Func func(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// Using returns the multiply of the named kernel, one of Kernels(), for
// the benchmarks and tests that compare kernels (Sgemm is the default
// kernel's). It returns an error if the name is unknown or the kernel
// cannot run on this machine or in this build.
func Using(name string) (Func, error) {
	for _, k := range usable {
		if k.name == name {
			return k.mul, nil
		}
	}
	if why, ok := unusable[name]; ok {
		return nil, fmt.Errorf("gemm: kernel %q is not usable: %s", name, why)
	}
	return nil, fmt.Errorf("gemm: unknown kernel %q (usable: %s)", name, strings.Join(Kernels(), ", "))
}

// mul is Sgemm on kernel kern.
func (kern *kernel) mul(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	sgemm(kern, max(threads, 1), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// sgemm runs one checked, non-empty multiply on kernel kern with up to
// threads goroutines.
func sgemm(kern *kernel, threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if kern.full != nil {
		kern.full(threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	blocked(kern, threads, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// scaleC sets C = beta*C, writing zeros without reading C when beta is 0.
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(ci)
		case 1:
		default:
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
}

const (
	errNegative = "gemm: negative dimension"
	errLead     = "gemm: bad leading dimension"
	errShortAB  = "gemm: insufficient length of a or b"
	errShortC   = "gemm: insufficient length of c"
)

func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(errNegative)
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := bShape(transB, n, k)
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) {
		panic(errLead)
	}
	if m == 0 || n == 0 {
		return
	}
	if k > 0 && (len(a) < (ar-1)*lda+ac || len(b) < (br-1)*ldb+bc) {
		panic(errShortAB)
	}
	if len(c) < (m-1)*ldc+n {
		panic(errShortC)
	}
}

// bShape returns the rows and columns of B as stored (op(B) is k x n).
func bShape(transB bool, n, k int) (rows, cols int) {
	if transB {
		return n, k
	}
	return k, n
}

// directA reports whether a multiply with n columns of C reads A in place
// instead of packing it: C has few column panels, so each panel of A
// would be used only a few times.
func (kern *kernel) directA(n int, transA bool) bool {
	return n <= 4*kern.nr || transA && n <= 8*kern.nr
}

// microFunc is a micro-kernel. With k >= 1 it computes one mr x nr tile:
// acc(i, j) = sum over p < k, in increasing p, of a[i*rsa+p*csa]*b[p*rsb+j],
// then c[i*ldc+j] = alpha*acc(i, j) + beta*c[i*ldc+j], where C is not read
// when beta is 0. All mr rows of A and nr columns of B are read, so the
// caller pads partial tiles; strides are in elements.
type microFunc func(k int, a []float32, rsa, csa int, b []float32, rsb int, c []float32, ldc int, alpha, beta float32)

// kernel is one way to multiply: a micro-kernel with its tile and cache
// block sizes for the blocked algorithm, or a whole external GEMM.
type kernel struct {
	name   string
	mr, nr int // micro-tile of C: rows, columns
	kc     int // depth of a packed block
	mc     int // rows of A packed per block (rounded to a multiple of mr)
	micro  microFunc

	// packRows, when set, packs full panels of an untransposed B:
	// for p < rows and j < panels, dst[(j*rows+p)*nr:][:nr] =
	// src[p*lds+j*nr:][:nr]. Without it, Go code does the same.
	packRows func(dst, src []float32, rows, lds, panels, nr int)

	// packTrans, when set, packs with 8x8 transposes: for g < groups,
	// b < blocks and i, j < 8, dst[(8*b+i)*ldd+8*g+j] =
	// src[(8*g+j)*lds+8*b+i]. It packs full panels of a transposed B
	// (nr a multiple of 8). Without it, Go code does the same.
	packTrans func(dst, src []float32, lds, blocks, groups, ldd int)

	// packA6, when set, packs 6 rows of an untransposed A, 8 columns per
	// block: dst[p*6+i] = src[i*lda+p] for i < 6, p < 8*blocks (tiles of
	// 6 rows only). Without it, Go code does the same.
	packA6 func(dst, src []float32, lda, blocks int)

	// full, when set, computes a whole product (an external library);
	// the fields above are then unused.
	full func(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
}

// The kernels, found once at start-up and never changed.
var (
	usable   []*kernel         // kernels this build can run on this CPU, in Kernels order
	unusable map[string]string // known kernel names that cannot run here, with why
)

func init() {
	unusable = map[string]string{}
	arch := archKernels(unusable)
	usable = append(usable, arch...)
	usable = append(usable, kernelGeneric)
	usable = append(usable, externalKernels(unusable)...)
}

// Kernels returns the names of the kernels usable on this machine in this
// build, the default first: "avx512" and "avx2" (assembly, when the CPU
// has AVX-512F, or AVX2 and FMA), "purego" (always) and "openblas" (with
// the openblas build tag, when libopenblas loads).
func Kernels() []string {
	names := make([]string, len(usable))
	for i, k := range usable {
		names[i] = k.name
	}
	return names
}

// Kernel returns the name of the default kernel, the one Sgemm uses:
// Kernels()[0].
func Kernel() string { return usable[0].name }
