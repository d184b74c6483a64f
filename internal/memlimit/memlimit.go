// Package memlimit tells how much memory this process may still allocate
// before a hard limit stops it, so that a model too large for the machine
// is refused with a message instead of ending the process with the Go
// runtime's "fatal error: out of memory" and its stack traces.
package memlimit

// Limit is the memory this process may still allocate (Bytes) and the
// limit that says so (What, for messages: "the address space limit
// (ulimit -v)", "the cgroup's memory.max", "the machine's available memory
// and swap").
type Limit struct {
	Bytes float64
	What  string
}

// smallest returns the smallest of ls, and false for none.
func smallest(ls []Limit) (Limit, bool) {
	if len(ls) == 0 {
		return Limit{}, false
	}
	m := ls[0]
	for _, l := range ls[1:] {
		if l.Bytes < m.Bytes {
			m = l
		}
	}
	return m, true
}
