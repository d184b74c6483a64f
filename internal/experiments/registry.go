package experiments

import (
	"context"
	"fmt"
	"path/filepath"
)

// Experiment is one of the paper's figures or tables that `decoreg
// experiment NAME` regenerates from a journal of runs (results.jsonl).
type Experiment struct {
	Name, Short string
	// Scale describes, in words, the scale the options give.
	Scale func(o SynthOptions) string
	// Run runs the shard's pending runs (see RunTasks).
	Run func(ctx context.Context, o SynthOptions, ro RunOptions) (JournalSummary, error)
	// Report writes dir/REPORT.md and the figures from dir's journal.
	Report func(dir string, info ReportInfo) error
}

// Synthetic lists the synthetic experiments in a fixed order.
func Synthetic() []*Experiment {
	return []*Experiment{riskExperiment(), curvesExperiment(), densityExperiment(), bbobExperiment()}
}

// LookupExperiment returns the synthetic experiment called name, or nil.
func LookupExperiment(name string) *Experiment {
	for _, e := range Synthetic() {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// experiment builds an Experiment from its typed parts.
func experiment[T Line](name, short string, scale func(SynthOptions) string, tasks func(SynthOptions) []Task[T],
	newLine func() T, describe func(T) string, report func(dir string, lines []T, info ReportInfo) error) *Experiment {
	return &Experiment{
		Name: name, Short: short, Scale: scale,
		Run: func(ctx context.Context, o SynthOptions, ro RunOptions) (JournalSummary, error) {
			return RunTasks(ctx, name, tasks(o), ro, newLine, describe)
		},
		Report: func(dir string, info ReportInfo) error {
			lines, _, err := ReadJournal(filepath.Join(dir, JournalFile), newLine)
			if err != nil {
				return &InputError{err}
			}
			if len(lines) == 0 {
				return &InputError{fmt.Errorf("%s: no results yet", filepath.Join(dir, JournalFile))}
			}
			for _, l := range lines {
				if e := l.M().Experiment; e != name {
					return &InputError{fmt.Errorf("%s: a line of experiment %q (key %s), not %q", filepath.Join(dir, JournalFile), e, l.M().Key, name)}
				}
			}
			return report(dir, lines, info)
		},
	}
}

func riskExperiment() *Experiment {
	return experiment("risk", "risk vs K: a truncated normal fitted with binary tokens and 2^K bins, against the theorem",
		func(o SynthOptions) string {
			t := RiskTasks(o)
			return fmt.Sprintf("%d runs (2 heads × N × K × seeds%s)", len(t), quickNote(o))
		},
		RiskTasks, func() *RiskLine { return new(RiskLine) },
		func(l *RiskLine) string {
			return fmt.Sprintf("mise %.4g theory %.4g, %d epochs", float64(l.MISE), float64(l.MISETheory), l.Epochs)
		},
		RiskReport)
}

func quickNote(o SynthOptions) string {
	if o.Quick {
		return "; --quick"
	}
	return ""
}
