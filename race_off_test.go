//go:build !race

package decoreg

// raceBuild: tests built with -race (whose shadow memory some tests' limits
// do not leave room for).
const raceBuild = false
