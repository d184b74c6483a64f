//go:build openblas && cgo

package gemm

import (
	"slices"

	"decoreg/internal/gemm/internal/cblas"

	"golang.org/x/sys/cpu"
)

// openblasCoretype is the OPENBLAS_CORETYPE set before OpenBLAS loads,
// unless the environment has one: its SkylakeX kernels with AVX-512, its
// Haswell kernels with AVX2 and FMA, else the library's own choice.
func openblasCoretype() string {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL:
		return "SkylakeX"
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
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
