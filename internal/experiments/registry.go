package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
	// Figures are the files of the figures Report writes in dir.
	Figures []string
	// Reads returns the files besides dir's journal that Report reads
	// (nil: none), which its outputs must not be.
	Reads func(dir string) []string
	// Merge appends to dir's journal the lines of the journals srcs (each
	// a results.jsonl file or a directory holding one) whose keys dir's
	// journal lacks: the step that gathers the shards of an array job. It
	// reports how many it added, and the keys of source lines left out
	// because a line of that key was there first with other results.
	Merge func(dir string, srcs []string) (MergeSummary, error)
}

// Synthetic lists the synthetic experiments in a fixed order.
func Synthetic() []*Experiment {
	es := []*Experiment{riskExperiment(), curvesExperiment(), densityExperiment(), bbobExperiment()}
	for _, e := range es {
		e.UsesN = true // each draws Options.N training points
		e.Figures = figuresOf(e.Name)
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
		e.Figures = figuresOf(e.Name)
	}
	return es
}

// All lists every experiment of `decoreg experiment` but uci.
func All() []*Experiment { return append(Synthetic(), RealData()...) }

// figuresOf returns the figures experiment name's report writes (see
// cmd/decoreg's TestExperimentFiguresDeclared).
func figuresOf(name string) []string {
	switch name {
	case "risk":
		return []string{"risk.png", "tree.png"}
	case "density":
		return []string{"density.png", "density-sampling.png"}
	case "realworld":
		return []string{"gap.png", "diagonal.png"}
	}
	return []string{name + ".png"}
}

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
			j, err := readJournal(filepath.Join(dir, JournalFile), name, newLine)
			if err != nil {
				return &InputError{err}
			}
			lines := j.lines
			if j.partial && info.Log != nil {
				fmt.Fprintf(info.Log, "warning: %s ends in a partial line (a run cut off), which the report leaves out\n", filepath.Join(dir, JournalFile))
			}
			warnDiffer(info.Log, filepath.Join(dir, JournalFile), j.differ, "the report takes")
			if len(lines) == 0 {
				return &InputError{fmt.Errorf("%s: no results yet", filepath.Join(dir, JournalFile))}
			}
			// A journal mixing --quick and full runs (written before runs of
			// the two kinds were kept apart) would average them together.
			if err := oneKind(filepath.Join(dir, JournalFile), name, lines, kindOf(name, lines[0].M().Key)); err != nil {
				return err
			}
			if err := oneData(filepath.Join(dir, JournalFile), lines, dataSeen{}); err != nil {
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
		Merge: func(dir string, srcs []string) (MergeSummary, error) {
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

// runKind is what the runs of one journal share, so that its report
// tables like with like: whether they are --quick runs, and, for the
// experiments whose plan gives every run one training size (--n;
// scaleSegment), that size as its key segment ("n=100000"), which the
// report does not table apart (runs at two sizes were averaged in one
// cell, or one hid the other).
type runKind struct {
	quick bool
	scale string // the key's scale segment, "" for experiments without one
}

// scaleSegment is the key segment that --n sets in every run of
// experiment name's plan, or "" (risk's plan holds several n, which its
// report tables apart; the others' sizes are their own).
func scaleSegment(name string) string {
	switch name {
	case "curves", "density", "bbob":
		return "n"
	case "hamming":
		return "rows"
	case "realworld":
		return "max_train"
	}
	return ""
}

// kindOf is the kind of the run of experiment name with key.
func kindOf(name, key string) runKind {
	k := runKind{quick: strings.HasSuffix(key, quickSuffix)}
	if seg := scaleSegment(name); seg != "" {
		if v := keySegment(key, seg); v != "" {
			k.scale = seg + "=" + v
		}
	}
	return k
}

// String names a kind's runs: "--quick runs", "full runs at n=1000".
func (k runKind) String() string {
	s := "full runs"
	if k.quick {
		s = "--quick runs"
	}
	if k.scale != "" {
		s += " at " + k.scale
	}
	return s
}

// oneKind refuses to add runs of another kind than want (--quick or full,
// or another training size) to the journal at path of experiment name
// holding lines: the report would mix them in its cells.
func oneKind[T Line](path, name string, lines []T, want runKind) error {
	if k, have, ok := otherKind(name, lines, want); ok {
		return &InputError{fmt.Errorf("%s holds %s (such as %q): %s there would be reported with them; give them another --out", path, have, k, want)}
	}
	return nil
}

// otherKind returns the key and kind of the first of lines (of experiment
// name) whose kind is not want; ok is false when all are want's.
func otherKind[T Line](name string, lines []T, want runKind) (key string, have runKind, ok bool) {
	for _, l := range lines {
		if k := l.M().Key; kindOf(name, k) != want {
			return k, kindOf(name, k), true
		}
	}
	return "", runKind{}, false
}

// MergeSummary is what Merge did.
type MergeSummary struct {
	Added int // lines appended
	// Differ are the keys of source lines not appended because a line of
	// the same key, kept (the destination's, an earlier source's, or an
	// earlier line of the same source), has other results: it differs in more than the
	// run's circumstances (Meta's host, kernel, threads, gomaxprocs,
	// go_version and command, and at any depth the times: "started",
	// "seconds" and fields ending in "_seconds"), e.g. the same run made
	// at another commit. Lines that differ only in those are the same run
	// merged again, and are not listed.
	Differ []string
	// CutPartial: the destination ended in a partial line (a run cut
	// off), cut before the first line appended.
	CutPartial bool
	// Lines is how many runs the destination holds after the merge.
	Lines int
	// Empty are the sources that hold no runs: an empty journal, or a
	// directory without one (a shard that had nothing to run).
	Empty []string
}

// runFields are the top-level JSON fields of Meta that describe how a run
// went rather than its results.
var runFields = []string{"host", "kernel", "threads", "gomaxprocs", "go_version", "command"}

// timeField reports whether a JSON field, at any depth, is a time taken
// or a clock reading, which differs between runs of the same results.
func timeField(name string) bool {
	return name == "seconds" || name == "started" || strings.HasSuffix(name, "_seconds")
}

// sameResults reports whether the journal lines a and b hold the same
// results: the same JSON, less runFields and time fields.
func sameResults(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	for _, v := range []any{va, vb} {
		if m, ok := v.(map[string]any); ok {
			for _, f := range runFields {
				delete(m, f)
			}
		}
		dropTimes(v)
	}
	return reflect.DeepEqual(va, vb)
}

// dropTimes deletes the time fields (timeField) of the decoded JSON v's
// objects, at every depth.
func dropTimes(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if timeField(k) {
				delete(v, k)
				continue
			}
			dropTimes(x)
		}
	case []any:
		for _, x := range v {
			dropTimes(x)
		}
	}
}

func mergeJournals[T Line](name, dir string, srcs []string, newLine func() T) (MergeSummary, error) {
	var sum MergeSummary
	dst := filepath.Join(dir, JournalFile)
	dj, err := readJournal(dst, name, newLine)
	if err != nil {
		return sum, &InputError{err}
	}
	have, haveRaw := dj.lines, dj.raw
	// The destination's kind (--quick or full, and the training size), or
	// the first source line's; kindFrom is where it was seen.
	var kind *runKind
	kindFrom := dst
	if len(have) > 0 {
		k := kindOf(name, have[0].M().Key)
		kind = &k
	}
	seen := map[string][]byte{} // each key's line, the one kept
	for i, l := range have {
		seen[l.M().Key] = haveRaw[i]
	}
	data := dataSeen{}
	if err := oneData(dst, have, data); err != nil {
		return sum, err
	}
	// Read and check every source before appending anything, so that a
	// bad source leaves the destination as it was.
	var add []json.RawMessage
	var keys []string
	for _, src := range srcs {
		path := src
		dir := false
		if st, err := os.Stat(src); err == nil && st.IsDir() {
			path, dir = filepath.Join(src, JournalFile), true
		}
		if same(path, dst) {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			if dir && errors.Is(err, fs.ErrNotExist) {
				// A shard's directory whose shard held no runs, or whose
				// run has not begun: nothing to merge, said by the caller.
				sum.Empty = append(sum.Empty, src)
				continue
			}
			return sum, &InputError{err}
		}
		sj, err := readJournal(path, name, newLine)
		if err != nil {
			return sum, &InputError{err}
		}
		lines, raw := sj.lines, sj.raw
		if len(lines) == 0 && !sj.partial {
			sum.Empty = append(sum.Empty, path)
		}
		sum.Differ = append(sum.Differ, sj.differ...) // repeated within the source: its first kept
		if sj.partial {
			return sum, &InputError{fmt.Errorf("%s ends in a partial line: is its run still going? (resume it first)", path)}
		}
		if kind == nil && len(lines) > 0 {
			k := kindOf(name, lines[0].M().Key)
			kind, kindFrom = &k, path
		}
		if err := oneData(path, lines, data); err != nil {
			return sum, fmt.Errorf("%w; merge them into different --out directories", err)
		}
		if kind != nil {
			// Named as merging sees it: the mix is of the sources (and
			// the destination), not in one journal.
			if _, k, ok := otherKind(name, lines, *kind); ok {
				return sum, &InputError{fmt.Errorf("%s holds %s and %s %s: they would be reported together; merge them into different --out directories", kindFrom, *kind, path, k)}
			}
		}
		for i, l := range lines {
			if kept, ok := seen[l.M().Key]; ok {
				if !sameResults(kept, raw[i]) {
					sum.Differ = append(sum.Differ, l.M().Key)
				}
				continue
			}
			seen[l.M().Key] = raw[i]
			// The line as written, not re-encoded from this build's type:
			// fields it does not know are kept, absent ones stay absent;
			// unless its key is not written as the journal's lookups
			// expect (a line edited by hand), which re-encoding fixes.
			if bytes.Contains(raw[i], keyField(l.M().Key)) {
				add = append(add, json.RawMessage(raw[i]))
			} else {
				b, err := json.Marshal(l)
				if err != nil {
					return sum, &InputError{fmt.Errorf("%s: %v", path, err)}
				}
				add = append(add, b)
			}
			keys = append(keys, l.M().Key)
		}
	}
	for i, l := range add {
		added, err := appendLine(dst, name, keys[i], l)
		if err != nil {
			return sum, err
		}
		if added {
			sum.Added++
		}
	}
	sum.CutPartial = dj.partial && len(add) > 0 // appendLine cut it
	sum.Lines = len(have) + sum.Added
	return sum, nil
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
	return errors.As(err, &pe) || errors.Is(err, outfile.ErrReadOnly) || errors.Is(err, outfile.ErrIsDir) || errors.Is(err, outfile.ErrLinkLoop)
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
