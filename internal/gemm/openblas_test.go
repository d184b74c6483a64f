//go:build openblas && cgo

package gemm

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestOpenBLASLoaded checks that the openblas build offers the kernel and
// that OpenBLAS runs the kernels chosen for this CPU. The other tests run
// it against the float64 reference with every other kernel.
func TestOpenBLASLoaded(t *testing.T) {
	if !slices.Contains(Kernels(), "openblas") {
		t.Fatalf("openblas build without the openblas kernel: %s", unusable["openblas"])
	}
	core := OpenBLASCore()
	want, set := os.LookupEnv("OPENBLAS_CORETYPE") // as the process started
	if !set {
		want = openblasCoretype()
	}
	t.Logf("OpenBLAS core %s (OPENBLAS_CORETYPE %q set by the user: %v)", core, want, set)
	if want != "" && !strings.EqualFold(want, core) {
		t.Errorf("OpenBLAS chose %s, want %s", core, want)
	}
}
