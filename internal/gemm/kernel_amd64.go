//go:build amd64 && gc && !purego

package gemm

import "decoreg/internal/vec"

//go:generate go run gen_kernels.go

// sgemmKernelAVX2 is the AVX2+FMA micro-kernel: a 6x16 tile. Its Go
// equivalent, with pointers read as slices starting at them:
//
//	var acc [6][16]float32
//	for p := 0; p < k; p++ {
//		for i := 0; i < 6; i++ {
//			for j := 0; j < 16; j++ {
//				acc[i][j] = fma(a[i*rsa+p*csa], b[p*rsb+j], acc[i][j])
//			}
//		}
//	}
//	for i, j: c[i*ldc+j] = alpha*acc[i][j]                      if beta == 0 (C not read)
//	          c[i*ldc+j] = fma(beta, c[i*ldc+j], alpha*acc[i][j]) otherwise
//
// k may be 0. The strides are in elements; B's rows must be contiguous.
//
//go:noescape
func sgemmKernelAVX2(a, b, c *float32, k, rsa, csa, rsb, ldc int, alpha, beta float32)

// sgemmKernelAVX512 is the AVX-512F micro-kernel: the same as
// sgemmKernelAVX2 on an 8x32 tile.
//
//go:noescape
func sgemmKernelAVX512(a, b, c *float32, k, rsa, csa, rsb, ldc int, alpha, beta float32)

// packRowsAVX packs full panels of an untransposed B (AVX), prefetching
// the rows ahead. Its Go equivalent, with pointers read as slices:
//
//	for p := 0; p < rows; p++ {
//		for j := 0; j < panels; j++ {
//			copy(dst[(j*rows+p)*nr:][:nr], src[p*lds+j*nr:][:nr])
//		}
//	}
//
// nr must be a multiple of 8.
//
//go:noescape
func packRowsAVX(dst, src *float32, rows, lds, panels, nr int)

// packRowsChecked checks the ranges that packRowsAVX touches, then calls it.
func packRowsChecked(dst, src []float32, rows, lds, panels, nr int) {
	if rows <= 0 || panels <= 0 {
		return
	}
	if nr%8 != 0 {
		panic("gemm: packRowsAVX needs nr a multiple of 8")
	}
	_ = src[(rows-1)*lds+panels*nr-1]
	_ = dst[panels*rows*nr-1]
	packRowsAVX(&dst[0], &src[0], rows, lds, panels, nr)
}

func microAVX2(k int, a []float32, rsa, csa int, b []float32, rsb int, c []float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX2(&a[0], &b[0], &c[0], k, rsa, csa, rsb, ldc, alpha, beta)
}

func microAVX512(k int, a []float32, rsa, csa int, b []float32, rsb int, c []float32, ldc int, alpha, beta float32) {
	sgemmKernelAVX512(&a[0], &b[0], &c[0], k, rsa, csa, rsb, ldc, alpha, beta)
}

var (
	kernelAVX512 = &kernel{name: "avx512", mr: 8, nr: 32, kc: 192, mc: 256, micro: microAVX512, packRows: packRowsChecked, packTrans: packTransChecked}
	kernelAVX2   = &kernel{name: "avx2", mr: 6, nr: 16, kc: 256, mc: 264, micro: microAVX2, packRows: packRowsChecked, packTrans: packTransChecked, packA6: packA6Checked}
)

// archKernels returns the assembly kernels this CPU can run, best first,
// and records in unusable why the others cannot run. A kernel whose
// instructions the CPU lacks is never returned, so it can never be
// selected. The CPU's features come from vec.CPU.
func archKernels(unusable map[string]string) []*kernel {
	var ks []*kernel
	f := vec.CPU()
	if f.AVX512F {
		ks = append(ks, kernelAVX512)
	} else {
		unusable["avx512"] = "this CPU (or its operating system) lacks AVX-512F"
	}
	if f.AVX2FMA() {
		ks = append(ks, kernelAVX2)
	} else {
		unusable["avx2"] = "this CPU (or its operating system) lacks AVX2 and FMA"
	}
	return ks
}
