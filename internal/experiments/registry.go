package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"decoreg/internal/outfile"
)

// Experiment is one of the paper's figures or tables that `decoreg
// experiment NAME` regenerates from a journal of runs (results.jsonl).
type Experiment struct {
	Name, Short string
	// RealData marks the experiments on datasets (Options.DataDir).
	RealData bool
	// Groups lists the groups of runs Options.Groups may choose among
	// (nil: the experiment has no such choice).
	Groups []string
	// UsesN marks the experiments whose number of training points
	// Options.N sets (the others train on each split's training part, or
	// sizes of their own).
	UsesN bool
	// Scale describes, in words, the scale the options give.
	Scale func(o Options) string
	// JournalScale marks an experiment whose report describes the scale
	// and the settings from its journal's lines, not from ReportInfo.Scale:
	// the options' flags say nothing about a report written without
	// running.
	JournalScale bool
	// Check builds the plan o gives without running it: an error (an
	// *InputError for bad options or data) is what Run would return
	// before its first run.
	Check func(o Options) error
	// Keys returns the keys of the runs o plans (for ReportInfo.Plan;
	// a JournalScale experiment's report ignores them).
	Keys func(o Options) ([]string, error)
	// Run runs the shard's pending runs (see RunTasks).
	Run func(ctx context.Context, o Options, ro RunOptions) (JournalSummary, error)
	// Report writes dir/REPORT.md and the figures from dir's journal.
	Report func(dir string, info ReportInfo) error
	// Merge appends to dir's journal the lines of the journals srcs (each
	// a results.jsonl file or a directory holding one) whose keys dir's
	// journal lacks, and returns how many it added: the step that
	// gathers the shards of an array job.
	Merge func(dir string, srcs []string) (int, error)
}

// Synthetic lists the synthetic experiments in a fixed order.
func Synthetic() []*Experiment {
	es := []*Experiment{riskExperiment(), curvesExperiment(), densityExperiment(), bbobExperiment()}
	for _, e := range es {
		e.UsesN = true // each draws Options.N training points
	}
	return es
}

// RealData lists the real-data experiments in a fixed order.
func RealData() []*Experiment {
	es := []*Experiment{realworldExperiment(), scalingExperiment(), decoderSizeExperiment(), errorCorrectionExperiment(), hammingExperiment(), calibrationExperiment(), tabularExperiment()}
	for _, e := range es {
		e.RealData = true
		// realworld's training rows are at most Options.N, hamming's
		// random subsets Options.N rows.
		e.UsesN = e.Name == "realworld" || e.Name == "hamming"
	}
	return es
}

// All lists every experiment of `decoreg experiment` but uci.
func All() []*Experiment { return append(Synthetic(), RealData()...) }

// LookupExperiment returns the experiment called name, or nil.
func LookupExperiment(name string) *Experiment {
	for _, e := range All() {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// experiment builds an Experiment from its typed parts.
func experiment[T Line](name, short string, scale func(Options) string, tasks func(Options) ([]Task[T], error),
	newLine func() T, describe func(T) string, report func(dir string, lines []T, info ReportInfo) error) *Experiment {
	return &Experiment{
		Name: name, Short: short, Scale: scale,
		Check: func(o Options) error {
			_, err := tasks(o)
			return err
		},
		Keys: func(o Options) ([]string, error) {
			ts, err := tasks(o)
			if err != nil {
				return nil, err
			}
			keys := make([]string, len(ts))
			for i, t := range ts {
				keys[i] = t.Key
				if o.Quick {
					keys[i] += quickSuffix
				}
			}
			return keys, nil
		},
		Run: func(ctx context.Context, o Options, ro RunOptions) (JournalSummary, error) {
			ts, err := tasks(o)
			if err != nil {
				return JournalSummary{}, err
			}
			if o.Quick {
				// Quick runs are not the full plan's runs with the same
				// settings (they train for a few epochs): other keys.
				for i := range ts {
					ts[i].Key += quickSuffix
				}
			}
			return RunTasks(ctx, name, ts, ro, newLine, describe)
		},
		Report: func(dir string, info ReportInfo) (err error) {
			defer func() {
				if r := recover(); r != nil { // gonum/plot panics on some degenerate data
					err = &InputError{fmt.Errorf("%s: writing %s's report from these results: %v", filepath.Join(dir, JournalFile), name, r)}
				}
			}()
			lines, _, err := ReadJournal(filepath.Join(dir, JournalFile), name, newLine)
			if err != nil {
				return &InputError{err}
			}
			if len(lines) == 0 {
				return &InputError{fmt.Errorf("%s: no results yet", filepath.Join(dir, JournalFile))}
			}
			// A journal mixing --quick and full runs (written before runs of
			// the two kinds were kept apart) would average them together.
			if err := oneKind(filepath.Join(dir, JournalFile), lines, strings.HasSuffix(lines[0].M().Key, quickSuffix)); err != nil {
				return err
			}
			if info.Ctx == nil {
				info.Ctx = context.Background()
			}
			if cmds := commandsOf(lines); cmds != "" {
				info.Command = cmds
			}
			if info.Scale == "" || info.Plan != nil && !samePlan(lines, info.Plan) {
				info.Scale = fmt.Sprintf("the %d runs of %s", len(lines), JournalFile)
				if strings.HasSuffix(lines[0].M().Key, quickSuffix) {
					info.Scale += " (--quick)"
				}
			}
			if err := report(dir, lines, info); err != nil {
				if info.Ctx.Err() != nil {
					return err
				}
				var ie *InputError
				if !errors.As(err, &ie) && !isWriteErr(err) {
					return &InputError{fmt.Errorf("%s: %v", filepath.Join(dir, JournalFile), err)}
				}
				return err
			}
			return nil
		},
		Merge: func(dir string, srcs []string) (int, error) {
			return mergeJournals(name, dir, srcs, newLine)
		},
	}
}

// samePlan reports whether the keys of lines are exactly plan's.
func samePlan[T Line](lines []T, plan []string) bool {
	want := make(map[string]bool, len(plan))
	for _, k := range plan {
		want[k] = true
	}
	have := make(map[string]bool, len(lines))
	for _, l := range lines {
		if !want[l.M().Key] {
			return false
		}
		have[l.M().Key] = true
	}
	return len(have) == len(want)
}

// quickSuffix ends the keys of --quick runs.
const quickSuffix = ",quick"

// oneKind refuses to add runs of the other kind (--quick or full) to the
// journal at path holding lines: the report would mix them in its cells.
func oneKind[T Line](path string, lines []T, quick bool) error {
	for _, l := range lines {
		if k := l.M().Key; strings.HasSuffix(k, quickSuffix) != quick {
			what, want := "full runs", "--quick"
			if !quick {
				what, want = "--quick runs", "full"
			}
			return &InputError{fmt.Errorf("%s holds %s (such as %q): %s runs there would be reported with them; give them another --out", path, what, k, want)}
		}
	}
	return nil
}

func mergeJournals[T Line](name, dir string, srcs []string, newLine func() T) (int, error) {
	dst := filepath.Join(dir, JournalFile)
	have, _, err := ReadJournal(dst, name, newLine)
	if err != nil {
		return 0, &InputError{err}
	}
	// The destination's kind (--quick or full), or the first source line's.
	var kind *bool
	if len(have) > 0 {
		q := strings.HasSuffix(have[0].M().Key, quickSuffix)
		kind = &q
	}
	seen := map[string]bool{}
	for _, l := range have {
		seen[l.M().Key] = true
	}
	// Read and check every source before appending anything, so that a
	// bad source leaves the destination as it was.
	var add []json.RawMessage
	var keys []string
	for _, src := range srcs {
		path := src
		if st, err := os.Stat(src); err == nil && st.IsDir() {
			path = filepath.Join(src, JournalFile)
		}
		if same(path, dst) {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return 0, &InputError{err}
		}
		lines, raw, partial, err := readJournal(path, name, newLine)
		if err != nil {
			return 0, &InputError{err}
		}
		if partial {
			return 0, &InputError{fmt.Errorf("%s ends in a partial line: is its run still going? (resume it first)", path)}
		}
		if kind == nil && len(lines) > 0 {
			q := strings.HasSuffix(lines[0].M().Key, quickSuffix)
			kind = &q
		}
		if kind != nil {
			if err := oneKind(path, lines, *kind); err != nil {
				return 0, err
			}
		}
		for i, l := range lines {
			if !seen[l.M().Key] {
				seen[l.M().Key] = true
				// The line as written, not re-encoded from this build's type:
				// fields it does not know are kept, absent ones stay absent;
				// unless its key is not written as the journal's lookups
				// expect (a line edited by hand), which re-encoding fixes.
				if bytes.Contains(raw[i], keyField(l.M().Key)) {
					add = append(add, json.RawMessage(raw[i]))
				} else {
					b, err := json.Marshal(l)
					if err != nil {
						return 0, &InputError{fmt.Errorf("%s: %v", path, err)}
					}
					add = append(add, b)
				}
				keys = append(keys, l.M().Key)
			}
		}
	}
	n := 0
	for i, l := range add {
		added, err := appendLine(dst, keys[i], l)
		if err != nil {
			return n, err
		}
		if added {
			n++
		}
	}
	return n, nil
}

// same reports whether paths a and b name the same file.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// commandsOf returns the distinct commands recorded in lines, joined by
// " and ", or "" when none records one.
func commandsOf[T Line](lines []T) string {
	var cmds []string
	seen := map[string]bool{}
	for _, l := range lines {
		if c := l.M().Command; c != "" && !seen[c] {
			seen[c] = true
			cmds = append(cmds, c)
		}
	}
	return strings.Join(cmds, "` and `")
}

// isWriteErr reports whether err came from writing a file (a full disk, a
// directory in the way), not from the results.
func isWriteErr(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) || errors.Is(err, outfile.ErrReadOnly)
}

func riskExperiment() *Experiment {
	return experiment("risk", "risk vs K: a truncated normal fitted with binary tokens and 2^K bins, against the theorem",
		func(o Options) string {
			t := RiskTasks(o)
			return fmt.Sprintf("%d runs (2 heads × N × K × seeds%s)", len(t), quickNote(o))
		},
		noErr(RiskTasks), func() *RiskLine { return new(RiskLine) },
		func(l *RiskLine) string {
			return fmt.Sprintf("mise %.4g theory %.4g, %d epochs", float64(l.MISE), float64(l.MISETheory), l.Epochs)
		},
		RiskReport)
}

// noErr adapts a plan that cannot fail.
func noErr[T Line](f func(Options) []Task[T]) func(Options) ([]Task[T], error) {
	return func(o Options) ([]Task[T], error) { return f(o), nil }
}

func quickNote(o Options) string {
	if o.Quick {
		return "; --quick"
	}
	return ""
}
