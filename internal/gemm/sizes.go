package gemm

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSizes parses a comma-separated list of multiply shapes "MxNxK"
// (C is MxN, the inner dimension K), as the benchmarks take them.
func ParseSizes(s string) ([][3]int, error) {
	var out [][3]int
	for _, f := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(f), "x")
		if len(parts) != 3 {
			return nil, fmt.Errorf("size %q is not MxNxK", f)
		}
		var d [3]int
		for i, p := range parts {
			v, err := strconv.Atoi(p)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("size %q: dimension %q is not a positive integer", f, p)
			}
			d[i] = v
		}
		out = append(out, d)
	}
	return out, nil
}
