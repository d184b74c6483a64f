//go:build !amd64 || !gc || purego

package nn

// useAVX2 is false: this build has no vector kernels (purego tag, or not
// amd64 with gc), and their Go twins run instead.
const useAVX2 = false
