// Package cblas loads Debian's OpenBLAS at run time for gemm's "openblas"
// kernel. Its code builds only with the openblas build tag and cgo; it is
// a package of its own because a package that uses cgo cannot hold Go
// assembly.
package cblas
