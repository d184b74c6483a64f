//go:build !linux

package main

// unnamedFiles reports whether the file system of dir makes files without
// a name: only Linux's do (O_TMPFILE).
func unnamedFiles(dir string) bool { return false }
