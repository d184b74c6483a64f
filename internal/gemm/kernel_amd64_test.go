//go:build amd64 && gc && !purego

package gemm

import "decoreg/internal/vec"

// nativeAsmKernels returns the assembly micro-kernels this CPU can run, by
// their assembly names.
func nativeAsmKernels() map[string]microFunc {
	m := map[string]microFunc{}
	if vec.CPU().AVX2FMA() {
		m["sgemmKernelAVX2"] = microAVX2
	}
	if vec.CPU().AVX512F {
		m["sgemmKernelAVX512"] = microAVX512
	}
	return m
}
