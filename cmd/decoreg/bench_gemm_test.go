package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"decoreg/internal/gemm"
)

func TestBenchGemm(t *testing.T) {
	var out bytes.Buffer
	saved := stdout
	stdout = &out
	defer func() { stdout = saved }()
	var errb bytes.Buffer
	if code := run([]string{"bench", "gemm", "-repeat", "1", "-min-time", "0", "-sizes", "8x8x8,3x5x7", "-threads", "1,2"}, &errb); code != 0 {
		t.Fatalf("exit status %d: %s", code, errb.String())
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	seen := map[string]int{}
	lines := 0
	for {
		var r gemmResult
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		lines++
		if !(r.M == 8 && r.N == 8 && r.K == 8 || r.M == 3 && r.N == 5 && r.K == 7) {
			t.Errorf("unexpected size in %+v", r)
		}
		if r.Threads != 1 && r.Threads != 2 {
			t.Errorf("unexpected threads in %+v", r)
		}
		if !(r.GFLOPS > 0) {
			t.Errorf("gflops not positive in %+v", r)
		}
		seen[r.Kernel]++
	}
	ks := gemm.Kernels()
	if lines != 2*2*len(ks) {
		t.Errorf("%d lines, want %d", lines, 2*2*len(ks))
	}
	for _, k := range ks {
		if seen[k] != 4 {
			t.Errorf("kernel %s: %d lines, want 4", k, seen[k])
		}
	}
	if gemm.Kernel() != ks[0] {
		t.Errorf("bench left kernel %s selected", gemm.Kernel())
	}
}

func TestBenchGemmBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-sizes", "8x8"},
		{"-sizes", "8x0x8"},
		{"-threads", "-1"},
		{"-kernels", "nonesuch"},
		{"-repeat", "0"},
		{"extra"},
		{"-sizes", "8x8x8, 8x8x8"},
		{"-threads", "1,1"},
		{"-kernels", "purego,purego"},
	} {
		var errb bytes.Buffer
		if code := run(append([]string{"bench", "gemm"}, args...), &errb); code != 2 {
			t.Errorf("%v: exit status %d, want 2", args, code)
		}
		if !strings.Contains(errb.String(), "bench gemm") {
			t.Errorf("%v: message %q does not name the command", args, errb.String())
		}
		// The flag is named as the other commands name theirs (it was
		// "-sizes" here, "--sizes" there).
		if f, ok := strings.CutPrefix(args[0], "-"); ok && !strings.Contains(errb.String(), "--"+f) {
			t.Errorf("%v: message %q does not name --%s", args, errb.String(), f)
		}
	}
	// A repeated entry in a list is refused (it would repeat cases); for
	// bench serve too, before a model is trained.
	for _, args := range [][]string{
		{"gemm", "-threads", "1,1"},
		{"serve", "--clients", "2,1,2"},
		{"serve", "--rows", "1, 1"},
		{"serve", "--batching", "off,off"},
	} {
		var errb bytes.Buffer
		if code := run(append([]string{"bench"}, args...), &errb); code != 2 || !strings.Contains(errb.String(), "twice") {
			t.Errorf("%v: exit status %d, %q", args, code, errb.String())
		}
	}
	if !slices.Contains(gemm.Kernels(), "purego") {
		t.Error("purego kernel missing")
	}
}
