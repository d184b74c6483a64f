//go:build openblas && cgo

package gemm

import (
	"slices"

	"decoreg/internal/gemm/internal/cblas"
	"decoreg/internal/vec"
)

// openblasCoretype is the OPENBLAS_CORETYPE set before OpenBLAS loads,
// unless the environment has one: its SkylakeX kernels with AVX-512, its
// Haswell kernels with AVX2 and FMA, else the library's own choice.
func openblasCoretype() string {
	f := vec.CPU()
	switch {
	case f.AVX512F && f.AVX512BW && f.AVX512DQ && f.AVX512VL:
		return "SkylakeX"
	case f.AVX2FMA():
		return "Haswell"
	}
	return ""
}

// externalKernels returns OpenBLAS's cblas_sgemm as the kernel "openblas"
// when libopenblas loads.
func externalKernels(unusable map[string]string) []*kernel {
	if err := cblas.Load(openblasCoretype()); err != nil {
		unusable["openblas"] = err.Error()
		return nil
	}
	return []*kernel{{name: "openblas", full: cblas.Sgemm}}
}

// OpenBLASCore returns the name of the kernels OpenBLAS chose
// (openblas_get_corename), or "" when this build has no OpenBLAS.
func OpenBLASCore() string {
	if slices.Contains(Kernels(), "openblas") {
		return cblas.CoreName()
	}
	return ""
}
