package main

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"decoreg/synth"
)

// mixtureLogPDF is the demo problem's log density, written out from its
// definition (package synth's documentation) independently of package
// synth: y|x = w N(0.5+0.3x, 0.10²) + (1-w) N(-0.5-0.2x, (0.15+0.05x)²),
// w = sigmoid(3x).
func mixtureLogPDF(x, y float64) float64 {
	normal := func(y, mu, sd float64) float64 {
		z := (y - mu) / sd
		return math.Exp(-0.5*z*z) / (sd * math.Sqrt(2*math.Pi))
	}
	w := 1 / (1 + math.Exp(-3*x))
	return math.Log(w*normal(y, 0.5+0.3*x, 0.10) + (1-w)*normal(y, -0.5-0.2*x, 0.15+0.05*x))
}

func TestDemoQuick(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	defer func(w, e io.Writer) { stdout, errOut = w, e }(stdout, errOut)
	stdout, errOut = &out, &errb
	if code := run([]string{"demo", "--quick", "--out", dir, "--seed", "3", "--threads", "1"}, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	got := out.String()

	// The true NLL printed is that of the test rows under the true density.
	xs, ys := synth.NewMixture(1).Sample(demoQuick.test, 3+demoTestSeed)
	var want float64
	for i, y := range ys {
		want -= mixtureLogPDF(xs[i], y)
	}
	want /= float64(len(ys))
	nll := map[string]float64{}
	for _, line := range strings.Split(got, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		if f[0] == "true" && f[1] == "density" {
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				t.Fatalf("true density line %q", line)
			}
			nll["true"] = v
		}
		for _, h := range []string{"decoder", "riemann", "mdn", "pointwise"} {
			if f[0] == h {
				// head, "enc", "NxW,", settings..., NLL, gap, epochs, seconds
				v, _ := strconv.ParseFloat(f[len(f)-4], 64)
				if f[len(f)-4] == "n/a" {
					v = math.NaN()
				}
				nll[h] = v
			}
		}
	}
	if !(math.Abs(nll["true"]-want) <= 0.0005) {
		t.Errorf("true NLL printed %v, want %.4f\n%s", nll["true"], want, got)
	}
	for _, h := range []string{"decoder", "riemann", "mdn"} {
		v, ok := nll[h]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < nll["true"]-0.5 {
			t.Errorf("%s: NLL %v (true %v)\n%s", h, v, nll["true"], got)
		}
	}
	if v, ok := nll["pointwise"]; !ok || !math.IsNaN(v) {
		t.Errorf("pointwise NLL %v, want n/a", v)
	}
	if !strings.Contains(got, "elapsed") {
		t.Errorf("no elapsed time:\n%s", got)
	}

	// A PNG and nothing else (no temporary file) in the directory.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "demo.png" {
		t.Fatalf("output directory holds %v", ents)
	}
	f, err := os.Open(filepath.Join(dir, "demo.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("demo.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 600 {
		t.Errorf("demo.png is %dx%d", b.Dx(), b.Dy())
	}
}

func TestDemoBadUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"demo", "--threads", "-1"}, "--threads"},
		{[]string{"demo", "--out", file}, "not a directory"},
		{[]string{"demo", "extra"}, "unexpected argument"},
		{[]string{"demo", "--bogus"}, "bogus"},
	} {
		var errb bytes.Buffer
		if code := run(c.args, &errb); code != 2 || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errb.String(), c.msg)
		}
	}
}
