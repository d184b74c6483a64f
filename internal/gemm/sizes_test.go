package gemm

import (
	"slices"
	"testing"
)

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("256x512x512, 1x2x3")
	if err != nil || !slices.Equal(got, [][3]int{{256, 512, 512}, {1, 2, 3}}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "256x512", "1x2x3x4", "0x1x1", "ax1x1", "1x1x-2", "1x1x1,"} {
		if _, err := ParseSizes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
