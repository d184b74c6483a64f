//go:build linux

package decoreg

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"decoreg/data"
)

// TestTooLarge: under an address space limit (ulimit -v) that leaves a
// few hundred MB, a model of 67M parameters is refused with ErrTooLarge
// before it allocates; the Go runtime's out-of-memory error ended the
// process with stack traces. The limited run is a child process (the
// limit cannot be lifted afterwards).
func TestTooLarge(t *testing.T) {
	if os.Getenv("DECOREG_TOOLARGE_CHILD") == "1" {
		tooLargeChild()
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	if raceBuild {
		t.Skip("the race detector's own memory does not fit the child's address space limit")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTooLarge$", "-test.v")
	cmd.Env = append(os.Environ(), "DECOREG_TOOLARGE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nREFUSED: ") || !strings.Contains(string(out), "FRAME REFUSED: ") || strings.Contains(string(out), "fatal error") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "address space limit (ulimit -v)") {
		t.Errorf("the refusal does not name the limit:\n%s", out)
	}
}

// tooLargeChild lowers its address space limit to 300 MB above its size,
// fits a model small enough for it three times (the heap of one is
// reused by the next: counting it as used refused the second), then a
// model too large for it, printing the outcomes.
func tooLargeChild() {
	b, _ := os.ReadFile("/proc/self/status")
	var vmKB uint64
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmSize:" {
			for _, c := range f[1] {
				vmKB = 10*vmKB + uint64(c-'0')
			}
		}
	}
	lim := syscall.Rlimit{Cur: vmKB*1024 + 300<<20, Max: vmKB*1024 + 300<<20}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		println("SETRLIMIT:", err.Error())
		return
	}
	x := make([]float64, 40*2)
	y := make([]float64, 40)
	for i := range y {
		x[2*i], x[2*i+1], y[i] = float64(i), float64(i%7), float64(i%5)
	}
	for k := range 3 {
		// 6.35M parameters: about 150 MB by the estimate, half the
		// limit.
		_, err := FitFlat(context.Background(), x, 40, 2, y, Config{Head: HeadDecoder, EncLayers: 7, EncWidth: 1024, MaxEpochs: 1, Threads: 1})
		if err != nil {
			println("FIT", k, "FAILED:", err.Error())
			return
		}
	}
	_, err := FitFlat(context.Background(), x, 40, 2, y, Config{Head: HeadDecoder, EncLayers: 5, EncWidth: 4096, MaxEpochs: 1, Threads: 1})
	if errors.Is(err, ErrTooLarge) {
		println("REFUSED:", err.Error())
	} else {
		println("NOT REFUSED:", err)
	}
	// A frame of 8,000 rows, each its own level: one-hot, 8,000 x 8,001
	// float64 (512 MB) made before Fit's check, and the runtime's fatal
	// out-of-memory error (34 GB for 65,536 levels).
	const n = 8000
	f := &data.Frame{Rows: n, Columns: []data.Column{
		{Name: "id", Kind: data.Categorical, Field: 0, Str: make([]string, n), Missing: make([]bool, n)},
		{Name: "y", Kind: data.Numeric, Field: 1, Num: make([]float64, n), Missing: make([]bool, n)},
	}}
	for i := range n {
		f.Columns[0].Str[i], f.Columns[1].Num[i] = "id"+strconv.Itoa(i), float64(i%13)
	}
	_, err = FitFrame(context.Background(), f, "y", Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1, Threads: 1}, WithMaxLevels(n))
	if errors.Is(err, ErrTooLarge) && strings.Contains(err.Error(), "the encoded features") {
		println("FRAME REFUSED:", err.Error())
	} else {
		println("FRAME NOT REFUSED:", err)
	}
}
