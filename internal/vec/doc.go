// Package vec holds the engine's vector kernels that more than one package
// needs (the exp of softmax arguments, for the layers of internal/nn and
// the distributions of package dist) and the CPU features that every
// assembly kernel of the engine chooses by (CPU).
//
// It is a leaf: it imports nothing else of decoreg's, so that nn, gemm and
// the public dist all import it and none of them imports another for it.
// Each kernel has a pure Go twin that computes the same bits; the
// assembly builds only for amd64 with the gc compiler and without the
// purego build tag.
package vec
