//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"decoreg/internal/jsonfloat"
)

// TestServeMatchesPredict runs 'decoreg serve' for each head and checks
// that its answers for the rows of a file are the numbers 'decoreg
// predict' writes for them, then stops it with SIGINT, SIGTERM or SIGHUP
// (exit 0; SIGHUP had killed it at once).
func TestServeMatchesPredict(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(guard)
	const data = "testdata/cli/small.csv"
	for k, head := range []string{"decoder", "riemann", "mdn", "pointwise"} {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGHUP}[k]
		model := sharedModel(t, head)
		out, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
		header, want := parseCSV(t, out)
		_, in := parseCSV(t, readFile(t, data))

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errs := cli(t, "serve", "--model", model, "--addr", addr)
			done <- result{code, errs}
		}()
		base := "http://" + addr
		for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
			resp, err := http.Get(base + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: the server did not start: %v", head, err)
			}
		}
		rows := make([]string, len(in))
		ys := make([]string, len(in))
		for i, r := range in {
			rows[i] = fmt.Sprintf(`{"x0":%v,"x1":%v}`, r[0], r[1])
			ys[i] = strconv.FormatFloat(r[2], 'g', -1, 64)
		}
		outs := `"mean","median","mode","quantiles"`
		hasLogPDF := header[len(header)-1] == "logpdf"
		yPart := ""
		if hasLogPDF {
			outs += `,"logpdf"`
			yPart = `,"y":[` + strings.Join(ys, ",") + `]`
		}
		body := `{"rows":[` + strings.Join(rows, ",") + `],"outputs":[` + outs + `]` + yPart + `}`
		resp, err := http.Post(base+"/v1/models/"+head+"/predict", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct {
			Predictions []struct {
				Mean, Median, Mode jsonfloat.Float
				Quantiles          []jsonfloat.Float
				LogPDF             *jsonfloat.Float
			}
		}
		if err := json.Unmarshal(b, &got); err != nil || resp.StatusCode != 200 || len(got.Predictions) != len(want) {
			t.Fatalf("%s: %d %s (%v)", head, resp.StatusCode, b, err)
		}
		same := func(a jsonfloat.Float, b float64) bool {
			return float64(a) == b || math.IsInf(b, -1) && math.IsInf(float64(a), -1)
		}
		for i, p := range got.Predictions {
			w := want[i]
			vals := append([]jsonfloat.Float{p.Mean, p.Median, p.Mode}, p.Quantiles...)
			if hasLogPDF {
				vals = append(vals, *p.LogPDF)
			}
			for j, v := range vals {
				if !same(v, w[j+1]) {
					t.Errorf("%s row %d: %s = %v from serve, %v from predict", head, i, header[j+1], v, w[j+1])
				}
			}
		}
		t.Logf("%s: %d rows, %d values each, equal to predict's", head, len(got.Predictions), len(header)-1)
		if head != "pointwise" {
			// Samples: the same draws as 'decoreg sample' with the seed
			// (they differed: review).
			sout, _ := mustCLI(t, "sample", "--model", model, "--data", data, "--n", "5", "--seed", "3", "--out", "-")
			_, draws := parseCSV(t, sout)
			body := `{"rows":[` + strings.Join(rows, ",") + `],"outputs":["samples"],"samples":{"n":5,"seed":3}}`
			resp, err := http.Post(base+"/v1/models/"+head+"/predict", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var sg struct {
				Predictions []struct{ Samples []jsonfloat.Float }
			}
			if err := json.Unmarshal(b, &sg); err != nil || len(sg.Predictions) != len(draws) {
				t.Fatalf("%s: samples: %d %s (%v)", head, resp.StatusCode, b, err)
			}
			for i, p := range sg.Predictions {
				for j, v := range p.Samples {
					if float64(v) != draws[i][j+1] {
						t.Errorf("%s row %d: draw %d is %v from serve, %v from sample", head, i, j, v, draws[i][j+1])
					}
				}
			}
		}
		syscall.Kill(os.Getpid(), sig)
		select {
		case r := <-done:
			if r.code != 0 || !strings.Contains(r.errs, "shut down cleanly") {
				t.Errorf("%s: serve exited %d after %v: %s", head, r.code, sig, r.errs)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: serve did not stop on %v", head, sig)
		}
	}
}
