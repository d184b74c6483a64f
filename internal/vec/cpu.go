package vec

import "golang.org/x/sys/cpu"

// Features are the x86 features that the engine's assembly kernels (here,
// in gemm and in nn) and its OpenBLAS set-up choose by.
type Features struct {
	AVX2, FMA                             bool
	AVX512F, AVX512BW, AVX512DQ, AVX512VL bool
}

// AVX2FMA reports whether f has both AVX2 and FMA.
func (f Features) AVX2FMA() bool { return f.AVX2 && f.FMA }

// cpuFeatures is read once at start-up and never changed.
var cpuFeatures = Features{
	AVX2: cpu.X86.HasAVX2, FMA: cpu.X86.HasFMA,
	AVX512F: cpu.X86.HasAVX512F, AVX512BW: cpu.X86.HasAVX512BW,
	AVX512DQ: cpu.X86.HasAVX512DQ, AVX512VL: cpu.X86.HasAVX512VL,
}

// CPU returns the features of this CPU, from golang.org/x/sys/cpu, which
// reports AVX2 and AVX-512 only when the operating system saves their
// registers; all false off x86. It is the one place where the engine reads
// CPU features.
//
// It describes the hardware whatever the build tags. Whether assembly is
// built at all is the build's choice: the assembly kernels and the files
// that call them build only for amd64 with the gc compiler and without
// the purego tag; otherwise their pure Go twins build instead, and the
// features are not consulted (except to hint OpenBLAS at its kernels
// under the openblas tag).
func CPU() Features { return cpuFeatures }
