//go:build amd64 && gc && !purego

package nn

import "decoreg/internal/vec"

// useAVX2 reports whether the vector kernels of this package (all AVX2:
// rows, relu, adam, transpose) may run: this build has them, and the CPU
// has AVX2 (vec.CPU, the engine's one reading of the CPU's features).
var useAVX2 = vec.CPU().AVX2
