package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
)

// train --ensemble and --tune end to end: the summary says what was made,
// the model file holds it, and eval, predict and sample take it.
func TestTrainEnsembleAndTune(t *testing.T) {
	dir := t.TempDir()
	train := writeSynth(t, dir, "train.csv", 300, 5)
	test := writeSynth(t, dir, "test.csv", 30, 6)
	ens := filepath.Join(dir, "e.model")
	out, _ := mustCLI(t, append([]string{"train", "--data", train, "--out", ens, "--ensemble", "3", "--threads", "1"}, tinyArgs("mdn")...)...)
	if s := summary(t, out); s["members"] != 3.0 {
		t.Errorf("summary %v, want members 3", s)
	}
	m, err := decoreg.Load(ens)
	if err != nil {
		t.Fatal(err)
	}
	if m.EnsembleSize() != 3 {
		t.Errorf("the file holds %d members", m.EnsembleSize())
	}
	mustCLI(t, "eval", "--model", ens, "--data", test)
	mustCLI(t, "predict", "--model", ens, "--data", test, "--out", filepath.Join(dir, "e.csv"))
	mustCLI(t, "sample", "--model", ens, "--data", test, "--n", "3", "--out", filepath.Join(dir, "e.samples"))

	tuned := filepath.Join(dir, "t.model")
	// --plr-sigma without --encoder plr: for the trials that draw it (it
	// was refused, though they took it with --encoder plr).
	out, errs := mustCLI(t, "train", "--data", train, "--out", tuned, "--head", "mdn", "--tune", "--trials", "3",
		"--budget", "60s", "--epochs", "4", "--enc-width", "16", "--threads", "1", "--ensemble", "2", "--plr-sigma", "0.05")
	s := summary(t, out)
	tu, ok := s["tune"].(map[string]any)
	if !ok || tu["trials"] != 3.0 || s["members"] == nil {
		t.Errorf("summary %v", s)
	}
	if !strings.Contains(errs, "trial") || !strings.Contains(errs, "settings") {
		t.Errorf("no trial table on stderr:\n%s", errs)
	}
	m, err = decoreg.Load(tuned)
	if err != nil {
		t.Fatal(err)
	}
	if m.Info().Tune == nil || len(m.Info().Tune.Trials) != 3 {
		t.Errorf("the model's trial history: %+v", m.Info().Tune)
	}
	for k, mk := range m.Members() {
		if c := mk.Config(); c.Encoder == decoreg.EncoderPLR && c.PLRSigma != 0.05 {
			t.Errorf("member %d: a plr encoder of sigma %v, want --plr-sigma's 0.05", k, c.PLRSigma)
		}
	}
	mustCLI(t, "eval", "--model", tuned, "--data", test)
	// --ensemble-from seeds: more members than trials.
	seeds := filepath.Join(dir, "s.model")
	out, errs = mustCLI(t, "train", "--data", train, "--out", seeds, "--head", "mdn", "--tune", "--trials", "2",
		"--budget", "60s", "--epochs", "4", "--enc-width", "16", "--threads", "1", "--ensemble", "3", "--ensemble-from", "seeds")
	if !strings.Contains(errs, "the best trial's seeds: 3 member(s)") || strings.Contains(errs, "no other trial") {
		t.Errorf("--ensemble-from seeds: stderr\n%s", errs)
	}
	if s := summary(t, out); s["members"] != 3.0 || s["tune"].(map[string]any)["members_cut"] != 0.0 {
		t.Errorf("--ensemble-from seeds: summary %v, want members 3 and members_cut 0", s)
	}
	if m, err = decoreg.Load(seeds); err != nil || m.EnsembleSize() != 3 || m.Info().Tune == nil || m.Info().Tune.EnsembleFrom != "seeds" {
		t.Errorf("--ensemble-from seeds: the file: %v", err)
	}
	mustCLI(t, "predict", "--model", seeds, "--data", test, "--out", filepath.Join(dir, "s.csv"))
	all := filepath.Join(dir, "a.model")
	out, errs = mustCLI(t, "train", "--data", train, "--out", all, "--head", "mdn", "--tune", "--trials", "2",
		"--budget", "60s", "--epochs", "4", "--enc-width", "16", "--threads", "1", "--ensemble", "3", "--ensemble-from", "all")
	if s := summary(t, out); s["members"] == nil || !strings.Contains(errs, "member(s) chosen") {
		t.Errorf("--ensemble-from all: summary %v, stderr\n%s", s, errs)
	}
	mustCLI(t, "eval", "--model", all, "--data", test)
	// A normalized decoder: soft seeds' members too, reported; none with
	// --soft-seeds 0. The trials compared at the default resolution, or
	// (with --tune-resolution 0, in the second run) by plain NLLs.
	for _, ss := range []string{"0.05", "0"} {
		dec := filepath.Join(dir, "d.model")
		flagRes := map[string]string{"0.05": "3.814697265625e-06", "0": "0"}[ss]
		ple := map[string]string{"0.05": "2", "0": "0"}[ss]
		out, errs = mustCLI(t, "train", "--data", train, "--out", dec, "--tune", "--trials", "2", "--budget", "60s", "--threads", "1", "--ensemble", "3", "--soft-seeds", ss, "--ple-seeds", ple,
			"--head", "decoder", "--vocab", "normalized:base=4,length=3", "--dec-width", "16", "--enc-width", "16", "--epochs", "3", "--tune-resolution", flagRes)
		tu, _ := summary(t, out)["tune"].(map[string]any)
		dm, err := decoreg.Load(dec)
		if err != nil {
			t.Fatal(err)
		}
		rep := dm.Info().Tune
		if res := map[string]float64{"0": 0, "0.05": decoreg.DefaultTuneResolution}[ss]; rep.Resolution != res || strings.Contains(errs, "(--tune-resolution)") != (res > 0) {
			t.Errorf("--soft-seeds %s: resolution %v, want %v; stderr\n%s", ss, rep.Resolution, res, errs)
		}
		switch {
		case ss != "0" && (tu["soft_seeds_chosen"] == nil || rep.SoftSeeds != 0.05 || !strings.Contains(errs, "with --soft-targets 0.05 and") || !strings.Contains(errs, "soft and")):
			t.Errorf("--soft-seeds %s: summary tune %v, report soft seeds %v, stderr\n%s", ss, tu, rep.SoftSeeds, errs)
		case ss == "0" && (tu["soft_seeds_chosen"] != nil || rep.SoftSeeds != 0 || strings.Contains(errs, "soft")):
			t.Errorf("--soft-seeds 0: summary tune %v, report soft seeds %v, stderr\n%s", tu, rep.SoftSeeds, errs)
		}
		// The ple seeds' members with --ple-seeds 2, reported; none with 0.
		switch {
		case ple == "2" && (tu["ple_seeds_chosen"] == nil || rep.PLESeeds != 2 || rep.PLESeedsTrained < 1 || !strings.Contains(errs, "with --input-transform ple)")):
			t.Errorf("--ple-seeds 2: summary tune %v, report %d planned, %d trained, stderr\n%s", tu, rep.PLESeeds, rep.PLESeedsTrained, errs)
		case ple == "0" && (tu["ple_seeds_chosen"] != nil || rep.PLESeeds != 0 || strings.Contains(errs, "ple")):
			t.Errorf("--ple-seeds 0: summary tune %v, report %d planned, stderr\n%s", tu, rep.PLESeeds, errs)
		}
	}
	// --ensemble-from trials: the greedy choice among the trials alone.
	tr := filepath.Join(dir, "tr.model")
	out, errs = mustCLI(t, "train", "--data", train, "--out", tr, "--head", "mdn", "--tune", "--trials", "3",
		"--budget", "60s", "--epochs", "4", "--enc-width", "16", "--threads", "1", "--ensemble", "3", "--ensemble-from", "trials")
	s = summary(t, out)
	if tu := s["tune"].(map[string]any); tu["members_cut"] != nil || strings.Contains(errs, "seeds") {
		t.Errorf("--ensemble-from trials: summary %v, stderr\n%s", s, errs)
	}
	if mem, _ := s["members"].(float64); func() bool { m, err = decoreg.Load(tr); return err != nil }() || m.Info().Tune.EnsembleFrom != "trials" || m.EnsembleSize() != max(int(mem), 1) {
		t.Errorf("--ensemble-from trials: the file: %v", err)
	}
	// Flags of --tune without it, and bad values.
	for _, args := range [][]string{
		{"--budget", "10s"}, {"--trials", "3"}, {"--tune", "--budget", "0s"}, {"--tune", "--trials", "0"},
		{"--tune", "--val-frac", "0"}, {"--tune", "--trials", "2", "--ensemble", "3", "--ensemble-from", "trials"}, {"--ensemble", "0"},
		{"--ensemble", "2", "--ensemble-from", "seeds"}, {"--tune", "--ensemble-from", "seeds"},
		{"--tune", "--ensemble", "2", "--ensemble-from", "best"},
		{"--soft-seeds", "0.03"}, {"--tune", "--ensemble", "2", "--soft-seeds", "-1"}, {"--tune", "--ensemble", "2", "--soft-seeds", "NaN"},
		{"--tune", "--ensemble", "2", "--soft-seeds", "11"}, {"--tune", "--ensemble", "2", "--ensemble-from", "seeds", "--soft-seeds", "0.01"},
		{"--tune", "--soft-seeds", "0.01"}, {"--tune", "--ensemble", "2", "--soft-seeds", "0.01"},
		{"--ple-seeds", "2"}, {"--tune", "--ple-seeds", "2"}, {"--tune", "--ensemble", "2", "--ensemble-from", "seeds", "--ple-seeds", "1"},
		{"--tune", "--ensemble", "2", "--ple-seeds", "-1"}, {"--tune", "--ensemble", "2", "--ple-seeds", "100"},
		{"--tune", "--ensemble", "2", "--ple-seeds", "1", "--head", "pointwise"},
		{"--tune", "--ensemble", "2", "--soft-seeds", "0.01", "--head", "decoder", "--vocab", "unnormalized:base=10,exponent=1,mantissa=2"},
		{"--tune", "--ensemble", "2", "--soft-seeds", "0.01", "--head", "decoder", "--soft-targets", "0.02"},
		{"--tune-resolution", "1e-5"}, {"--tune", "--tune-resolution", "1"}, {"--tune", "--tune-resolution", "-1e-5"},
		{"--tune", "--tune-resolution", "NaN"}, {"--tune", "--tune-resolution", "1e-5"},
		{"--tune", "--tune-resolution", "0.13", "--head", "decoder"}, // wider than base 8's first digit
		{"--tune", "--tune-resolution", "1e-5", "--head", "decoder", "--vocab", "normalized:base=8,length=4,repeat=2"},
		{"--tune", "--tune-resolution", "1e-5", "--head", "decoder", "--vocab", "hamming:length=12"},
		{"--tune", "--tune-resolution", "1e-5", "--head", "decoder", "--vocab", "unnormalized:base=10,exponent=1,mantissa=2"},
	} {
		code, _, errs := cli(t, append([]string{"train", "--data", train, "--out", filepath.Join(dir, "x.model"), "--head", "mdn"}, args...)...)
		if code != 2 || !strings.Contains(errs, "--") {
			t.Errorf("train %v: exit %d, %s", args, code, errs)
		}
	}
}

// --ple-seeds whose network on the encoding would be too large: the
// search and the other seeds' members are kept and saved, and stderr says
// why no ple member was trained (it failed after the search, losing all).
func TestTunePLESeedsTooLarge(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for j := range 200 {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("y\n")
	for i := range 300 {
		for j := range 200 {
			fmt.Fprintf(&b, "%d,", (i*7919+j*104729)%1009)
		}
		fmt.Fprintf(&b, "%d\n", (i*31)%97)
	}
	data := filepath.Join(dir, "wide.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.model")
	_, errs := mustCLI(t, "train", "--data", data, "--out", out, "--threads", "1", "--encoder", "plr", "--epochs", "1", "--tune", "--trials", "1",
		"--budget", "60s", "--ensemble", "2", "--ple-seeds", "1", "--ple-bins", "256", "--quiet")
	if !strings.Contains(errs, "--ple-seeds 1: none trained: the network for 200 features (51200 columns of their ple encoding)") {
		t.Errorf("stderr: %s", errs)
	}
	m, err := decoreg.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if rep := m.Info().Tune; rep.PLESeeds != 0 || rep.PLESeedsTrained != 0 || rep.PLESeedsSkipped == "" {
		t.Errorf("report: %d planned, %d trained, skipped %q", rep.PLESeeds, rep.PLESeedsTrained, rep.PLESeedsSkipped)
	}
}

// A numeric column made categorical by a stray text cell is warned about
// (once: a percentage is a number as spreadsheets write them).
func TestTrainWarnsNumericLevels(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "pct.csv")
	if err := os.WriteFile(data, []byte("x,y\n1,2\n2,3\n3,4\n50%,5\n4,5\n5,6\n6,7\n7,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCLI(t, "train", "--data", data, "--head", "mdn", "--epochs", "1", "--quiet", "--val-frac", "0", "--out", filepath.Join(dir, "m.model"))
	if !strings.Contains(errs, `column "x": 8 of 8 values read as numbers, 1 of them only as written otherwise`) || !strings.Contains(errs, `("50%" is 50 in percent)`) || strings.Contains(errs, "is categorical") {
		t.Errorf("stderr: %s", errs)
	}
}

// An interrupted --tune --ensemble run's table says how many members were
// chosen, not how the seeds' members trained (they may not have started).
func TestPrintTrialsInterrupted(t *testing.T) {
	rep := &decoreg.TuneReport{
		Trials:       []decoreg.TuneTrial{{N: 1, Label: "defaults", ValLoss: -1, Status: "max-epochs", Chosen: true}, {N: 2, Label: "lr=1e-4", ValLoss: 4.6051798054084085e37, Status: "cancelled", Chosen: true}},
		Budget:       10,
		Seconds:      0.5,
		Members:      2,
		EnsembleFrom: decoreg.EnsembleFromAll,
	}
	var b strings.Builder
	printTrials(&b, rep, true)
	out := b.String()
	if !strings.Contains(out, "interrupted: 2 member(s) chosen so far, 0 of them the best trial's seeds") || strings.Contains(out, "seeds trained in") {
		t.Errorf("interrupted table:\n%s", out)
	}
	if !strings.Contains(out, " 4.605e+37 ") {
		t.Errorf("a huge validation loss is not written with an exponent:\n%s", out)
	}
	b.Reset()
	printTrials(&b, rep, false)
	if out := b.String(); !strings.Contains(out, "the best trial's seeds trained in 0s of a second 10s budget") {
		t.Errorf("finished run's table:\n%s", out)
	}
	// The largest --budget prints as itself, not as a negative duration.
	rep.Budget = float64(math.MaxInt64) / 1e9
	b.Reset()
	printTrials(&b, rep, false)
	if out := b.String(); !strings.Contains(out, "of a 2562047h47m16.854775807s budget") || !strings.Contains(out, "of a second 2562047h47m16.854775807s budget") {
		t.Errorf("the largest budget:\n%s", out)
	}
	// With --stop-by crps the table says val_loss is a CRPS, not an NLL at
	// a resolution.
	rep.Trials[0].Config.StopBy, rep.Resolution = decoreg.StopByCRPS, 0
	b.Reset()
	printTrials(&b, rep, false)
	if out := b.String(); !strings.Contains(out, "val_loss: the validation CRPS in units of the target range (--stop-by crps)") {
		t.Errorf("--stop-by crps:\n%s", out)
	}
	for v, want := range map[float64]string{-1.5: "-1.5000", 99999.5: "99999.5000", 123456.7: "1.235e+05", -9999.5: "-9999.5000", -12345.6: "-1.235e+04", -2e6: "-2e+06", math.Inf(1): "-", math.NaN(): "-"} {
		if got := fmtLoss(v); got != want {
			t.Errorf("fmtLoss(%v) = %q, want %q", v, got, want)
		}
	}
}

// A cut search says why: trials stopped by the budget, skipped at the
// speed measured, or both (it said "the budget ran out" after 7 ms of 20 s
// when a trial was skipped).
func TestPrintTrialsCut(t *testing.T) {
	for _, c := range []struct {
		statuses []string
		want     []string
		not      string
	}{
		{[]string{"max-epochs", "skipped"}, []string{"1 trial(s) were skipped, which at the speed measured"}, "the budget ran out"},
		{[]string{"budget", "max-epochs"}, []string{"the budget ran out before every trial ended, so another run"}, "skipped"},
		{[]string{"budget", "skipped", "skipped"}, []string{"the budget ran out before every trial ended, and 2 trial(s) were skipped"}, ""},
	} {
		rep := &decoreg.TuneReport{Budget: 20, Seconds: 0.007, Cut: true}
		for i, s := range c.statuses {
			rep.Trials = append(rep.Trials, decoreg.TuneTrial{N: i + 1, Label: "t", ValLoss: 1, Status: s})
		}
		var b strings.Builder
		printTrials(&b, rep, false)
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%v: want %q in:\n%s", c.statuses, w, b.String())
			}
		}
		if c.not != "" && strings.Contains(b.String(), c.not) {
			t.Errorf("%v: %q in:\n%s", c.statuses, c.not, b.String())
		}
	}
}

// TestTuneBudgetTooShortNamesFlag: a --budget in which no trial finishes
// an epoch is refused naming the flag (it said "the budget of 1ms", exit
// 1: review).
func TestTuneBudgetTooShortNamesFlag(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 400, 3)
	code, _, errs := cli(t, "train", "--data", data, "--tune", "--budget", "1ms", "--trials", "2", "--batch", "1", "--threads", "1", "--quiet", "--out", filepath.Join(dir, "m.model"))
	if code != 2 || !strings.Contains(errs, "--budget 1ms: ") || !strings.Contains(errs, "no trial finished an epoch within it") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// TestTuneSeedRoom: with --tune, the room the members' seeds need is the
// library's to judge (Tune): at the largest seed, --ensemble-from trials
// (every trial has --seed) trains, and the other sources are refused
// naming --seed. The CLI's Validate refused trials too, though Tune
// accepts it (the reread, session 40).
func TestTuneSeedRoom(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 120, 2)
	const top = "18446744073709551615"
	for _, from := range []string{"trials", "seeds", "all"} {
		code, _, errs := cli(t, "train", "--data", data, "--tune", "--budget", "2s", "--trials", "2", "--epochs", "2", "--ensemble", "2",
			"--ensemble-from", from, "--seed", top, "--threads", "1", "--quiet", "--out", filepath.Join(dir, from+".model"))
		switch {
		case from == "trials" && code != 0:
			t.Errorf("--ensemble-from trials at the largest seed: exit %d, %q", code, errs)
		case from != "trials" && (code != 2 || !strings.Contains(errs, "--seed: "+top+" leaves no room")):
			t.Errorf("--ensemble-from %s at the largest seed: exit %d, %q", from, code, errs)
		}
	}
}
