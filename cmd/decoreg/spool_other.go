//go:build !linux

package main

import "os"

// anonSpool is for Linux's files without a name (O_TMPFILE); elsewhere
// dataFile makes a named file.
func anonSpool(dir string) (f, keep *os.File, proc string) { return nil, nil, "" }
