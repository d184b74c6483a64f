//go:build !linux

package memlimit

// Available knows no limits outside Linux: ok is false.
func Available() (Limit, bool) { return Limit{}, false }
