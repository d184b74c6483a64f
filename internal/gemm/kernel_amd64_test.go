//go:build amd64 && gc && !purego

package gemm

// nativeAsmKernels returns the assembly micro-kernels this CPU can run, by
// their assembly names.
func nativeAsmKernels() map[string]microFunc {
	m := map[string]microFunc{}
	if useAVX2 {
		m["sgemmKernelAVX2"] = microAVX2
	}
	if useAVX512 {
		m["sgemmKernelAVX512"] = microAVX512
	}
	return m
}
