package gemm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate checks that kernel_amd64.s is what gen_kernels.go
// writes now; run "go generate" after editing the generator.
func TestGeneratedUpToDate(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator")
	}
	out := filepath.Join(t.TempDir(), "kernel_amd64.s")
	if msg, err := exec.Command(goCmd, "run", "gen_kernels.go", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_kernels.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("kernel_amd64.s differs from the output of gen_kernels.go: run go generate")
	}
}
