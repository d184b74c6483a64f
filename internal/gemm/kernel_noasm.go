//go:build !amd64 || purego || !gc

package gemm

// archKernels returns no assembly kernels: this build has none, and every
// multiply goes to the portable kernel, kernelGeneric.
func archKernels(unusable map[string]string) []*kernel {
	why := "built without assembly (purego tag, or not amd64 with gc)"
	unusable["avx512"] = why
	unusable["avx2"] = why
	return nil
}
