//go:build !unix

package main

// peakRSSMB returns 0: the peak resident set size is not measured on this
// system.
func peakRSSMB() float64 { return 0 }
