package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/jsonfloat"
	"decoreg/vocab"
)

var cmdShow = &Command{
	Name:      "show",
	UsageLine: "show --model MODEL [--json] [--columns N]",
	Short:     "describe a model file: its head, columns, training, calibration, ensemble and tuning",
	Long: `Show reads a model file and describes it on standard output, without
data: what it predicts, from which columns and how it encodes them, its
network, how it was trained and stopped, its calibration, an ensemble's
members, and the trial table of 'train --tune' (the whole trial history
is saved with the model).

The text lists

	model         the file, the decoreg version that trained it, and when
	head          the head and its settings (a decoder's tokenization, with
	              --raw-target, --unbounded, --unmasked-loss; Riemann's
	              bins; the MDN's components)
	network       the encoder (mlp or plr, layers x width, the plr
	              embedding's settings, dropout), the decoder's layers,
	              width and attention heads, and the number of parameters
	              (all members' for an ensemble)
	inputs        the input transform (--input-transform)
	target        its name and the training targets' range (with
	              --target-range the fixed range)
	support       for an unnormalized decoder (not --unbounded), the
	              ends of the cells its distributions can put mass in:
	              the range widened by 10% on each side, a cell across an
	              end kept whole (a fixed range: the range itself, a cell
	              across an end cut there; in a file from before that,
	              kept whole)
	columns       the columns the model reads, in order, with their kind:
	              a number (a missing cell is imputed with the training
	              median shown, and an indicator column is added where the
	              training data had missing cells) or a category (its levels
	              one-hot; a level not seen in training sets none of them),
	              and the cells read as missing (--na); at most --columns
	              of them (default 50), --json lists all
	training      rows (of them held out for validation; skipped for a
	              missing target), epochs, the best epoch and its
	              validation loss, why training stopped, its time, threads
	              and GEMM kernel
	settings      the optimizer's settings and the options that shaped
	              training (--lr, --batch, --patience, --ema, --stop-by, ...)
	calibration   the temperature, temperatures per token depth or the
	              isotonic map of 'train --calibrate', the objective, and the
	              validation scores before and after it
	ensemble      each member's head, tokenization, encoder, epochs and
	              validation loss
	tune          the trial table, best first, as 'train --tune' printed it

With --json one JSON object instead, holding every setting and record of
the file: "file", "head", "tokenization", "target", "y_range", "columns"
(name, kind "number" or "category", "levels", "median", "missing" for an
indicator), "na" (the cells read as missing besides the empty one),
"support" (an unnormalized decoder's, as above) and "ends_cut" (true where
its extreme cells are cut at a fixed range's ends), "features" (the network's
inputs: "NAME=LEVEL" per level, "NAME:missing" per indicator), "params",
"config" (every setting, as
the Go library's decoreg.Config), "train" (the training record,
decoreg.TrainInfo, with the trial history under "tune"; best_val_loss,
and its pretrain's, are null for a model trained without validation rows), and "members" (an
ensemble's members after the first, each with its "config" and "train").
Non-finite numbers are written as the strings "NaN", "Inf" and "-Inf".

A model fitted through the Go library without names shows its inputs as
x0, x1, ...

Examples:

	decoreg show --model m.model
	decoreg show --model m.model --json | jq .train.tune.trials`,
	Run: runShow,
}

// showF holds show's flags.
var showF struct {
	model   string
	json    bool
	columns int
}

func init() {
	fs := &cmdShow.Flag
	fs.StringVar(&showF.model, "model", "", "the model `MODEL` written by 'decoreg train' (required)")
	fs.BoolVar(&showF.json, "json", false, "write one JSON object with every setting and record instead of text")
	fs.IntVar(&showF.columns, "columns", 50, "list at most `N` columns in the text (--json lists all)")
}

func runShow(cmd *Command, args []string) error {
	const name = "show"
	f := &showF
	if err := noArgs(name, args); err != nil {
		return err
	}
	if err := required(name, &cmd.Flag, "model"); err != nil {
		return err
	}
	if f.columns < 0 {
		return inputf(name, "--columns %d: want a number of columns >= 0", f.columns)
	}
	if f.json && isSet(&cmd.Flag, "columns") {
		return inputf(name, "--columns sets the text's list; --json lists every column")
	}
	m, err := loadModel(name, f.model)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if f.json {
		if err := showJSON(&b, f.model, m); err != nil {
			return failf(name, "%v", err)
		}
	} else {
		showText(&b, f.model, m, f.columns)
	}
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return failf(name, "writing standard output: %v", err)
	}
	return nil
}

// showColumn is one input column in show's JSON.
type showColumn struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "number" or "category"
	Levels  []string `json:"levels,omitempty"`
	Median  *float64 `json:"median,omitempty"` // a number's imputed value
	Missing bool     `json:"missing,omitempty"`
	// Range is a number's smallest and largest training value (absent in
	// model files written before they were kept).
	Range *[2]float64 `json:"range,omitempty"`
}

// showMember is an ensemble member after the first in show's JSON.
type showMember struct {
	Config decoreg.Config `json:"config"`
	Train  trainRecord    `json:"train"`
}

// trainRecord is a decoreg.TrainInfo in show's JSON: its best_val_loss,
// and its pretrain's, are null for a model trained without validation
// rows (0 there, read as a real loss), as train's summary writes them.
type trainRecord struct{ decoreg.TrainInfo }

// MarshalJSON implements json.Marshaler.
func (r trainRecord) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.TrainInfo)
	if err != nil || r.ValRows > 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["best_val_loss"] = json.RawMessage("null")
	if p, ok := m["pretrain"]; ok && r.Pretrain != nil {
		var pm map[string]json.RawMessage
		if err := json.Unmarshal(p, &pm); err != nil {
			return nil, err
		}
		pm["best_val_loss"] = json.RawMessage("null")
		if m["pretrain"], err = json.Marshal(pm); err != nil {
			return nil, err
		}
	}
	return json.Marshal(m)
}

// showColumns returns the columns a model reads: its schema's, or its
// feature names (x0, x1, ... without them) as numbers.
func showColumns(m *decoreg.Model) (cols []showColumn, na []string) {
	if sc := m.Schema(); sc != nil {
		for _, c := range sc.Columns {
			sc := showColumn{Name: c.Name, Kind: "number", Missing: c.Missing}
			if c.Kind == data.Categorical {
				sc.Kind, sc.Levels = "category", c.Levels
			} else {
				med := c.Median
				sc.Median, sc.Range = &med, c.Range
			}
			cols = append(cols, sc)
		}
		return cols, sc.NA
	}
	for _, n := range featureNames(m) {
		cols = append(cols, showColumn{Name: n, Kind: "number"})
	}
	return cols, nil
}

// featureNames returns the network's inputs' names: the model's, or x0,
// x1, ... for a model without names.
func featureNames(m *decoreg.Model) []string {
	names, _ := m.Names()
	if len(names) == m.Features() {
		return names
	}
	names = make([]string, m.Features())
	for i := range names {
		names[i] = "x" + strconv.Itoa(i)
	}
	return names
}

// totalParams is the number of parameters of m, all members' for an
// ensemble.
func totalParams(m *decoreg.Model) int {
	n := 0
	for _, mk := range m.Members() {
		n += mk.Info().Params
	}
	return n
}

func showJSON(w io.Writer, path string, m *decoreg.Model) error {
	cfg := m.Config()
	_, target := m.Names()
	cols, na := showColumns(m)
	lo, hi := m.YRange()
	out := struct {
		File         string             `json:"file"`
		Head         string             `json:"head"`
		Tokenization string             `json:"tokenization,omitempty"`
		Target       string             `json:"target"`
		YRange       [2]jsonfloat.Float `json:"y_range"`
		Columns      []showColumn       `json:"columns"`
		NA           []string           `json:"na,omitempty"`
		// NADecimalComma: the markers' numbers are written with a decimal
		// comma (the training file's notation); absent for older files.
		NADecimalComma *bool               `json:"na_decimal_comma,omitempty"`
		Features       []string            `json:"features"`
		Params         int                 `json:"params"`
		Support        *[2]jsonfloat.Float `json:"support,omitempty"`
		EndsCut        bool                `json:"ends_cut,omitempty"`
		Config         decoreg.Config      `json:"config"`
		Train          trainRecord         `json:"train"`
		Members        []showMember        `json:"members,omitempty"`
	}{
		File: path, Head: string(cfg.Head), Target: target, YRange: [2]jsonfloat.Float{jsonfloat.Float(lo), jsonfloat.Float(hi)},
		Columns: cols, NA: na, Features: featureNames(m), Params: totalParams(m),
		NADecimalComma: naComma(m),
		Config:         cfg, Train: trainRecord{m.Info()},
	}
	if cfg.Head == decoreg.HeadDecoder {
		out.Tokenization = cfg.Vocab
	}
	if a, b, cut, ok := support(m); ok {
		out.Support = &[2]jsonfloat.Float{jsonfloat.Float(a), jsonfloat.Float(b)}
		out.EndsCut = cut
	}
	for _, mk := range m.Members()[1:] {
		out.Members = append(out.Members, showMember{Config: mk.Config(), Train: trainRecord{mk.Info()}})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// showText writes the model's description as text, listing at most
// maxCols columns.
func showText(w io.Writer, path string, m *decoreg.Model, maxCols int) {
	cfg, info := m.Config(), m.Info()
	line := func(key, format string, a ...any) {
		fmt.Fprintf(w, "%-12s %s\n", key, fmt.Sprintf(format, a...))
	}
	when := ""
	if info.Created != "" {
		when = ", trained " + textOf(info.Created)
	}
	version := textOf(info.Version)
	if version == "" {
		version = "an unknown version"
	}
	line("model", "%s (decoreg %s%s)", path, version, when)
	line("head", "%s", headText(cfg))
	line("network", "%s; %s parameters", networkText(cfg), grouped(totalParams(m)))
	line("inputs", "%s", inputsText(cfg))
	_, target := m.Names()
	if target == "" {
		target = "(no name)"
	} else {
		target = data.QuoteName(target)
	}
	lo, hi := m.YRange()
	rng := fmt.Sprintf("training range %s", interval(lo, hi))
	if cfg.FixedRange() {
		rng = fmt.Sprintf("fixed range %s (--target-range)", interval(lo, hi))
	}
	line("target", "%s, %s", target, rng)
	if a, b, cut, ok := support(m); ok {
		why := "the training range widened by 10% on each side (a cell across an end is kept whole)"
		if cut {
			why = "the fixed range, a cell across an end cut there"
		} else if cfg.FixedRange() {
			why = "the fixed range (a cell across an end is kept whole, as in files written before the cut)"
		}
		line("support", "%s: an unnormalized decoder's cells that meet %s", intervalBeside(a, b, lo, hi), why)
	}

	cols, na := showColumns(m)
	what := fmt.Sprintf("%d", len(cols))
	if n := m.Features(); n != len(cols) {
		what += fmt.Sprintf(", encoded as %d network inputs", n)
	}
	if na != nil {
		q := []string{`""`}
		for _, s := range na {
			q = append(q, strconv.Quote(s))
		}
		what += "; cells read as missing: " + strings.Join(q, ", ")
		if sc := m.Schema(); sc != nil && sc.NADecimalComma != nil && *sc.NADecimalComma && slices.ContainsFunc(na, func(s string) bool {
			_, err := (data.Dialect{DecimalComma: true}).ParseNumber(s)
			return err == nil
		}) {
			what += " (numbers written with a decimal comma, as in the training file; they mark their numbers in files of either notation)"
		}
	}
	if m.Schema() == nil {
		if names, _ := m.Names(); len(names) == 0 {
			what += " (a model of the Go library without names: inputs by position)"
		}
	}
	line("columns", "%s", what)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, c := range cols {
		if i == maxCols {
			fmt.Fprintf(tw, "  ... %d more (--columns N lists more; --json lists all)\n", len(cols)-maxCols)
			break
		}
		desc := "number"
		if c.Range != nil {
			desc += " in " + interval(c.Range[0], c.Range[1]) + " in training"
		}
		switch {
		case c.Kind == "category":
			desc = fmt.Sprintf("category, %d level(s): %s", len(c.Levels), quoteList(c.Levels))
			if c.Missing {
				desc += "; missing cells have an indicator"
			}
		case c.Missing:
			desc += fmt.Sprintf("; a missing cell reads as %s (the training median), with an indicator", short(*c.Median))
		case c.Median != nil:
			desc += fmt.Sprintf("; a missing cell reads as %s (the training median)", short(*c.Median))
		}
		fmt.Fprintf(tw, "  %s\t%s\n", nameText(c.Name), desc)
	}
	tw.Flush()

	whole := ""
	if info.Members > 1 || m.EnsembleSize() > 1 || info.Tune != nil {
		whose := "the first member's"
		if m.EnsembleSize() == 1 {
			whose = "the chosen trial's" // a single model of --tune
		}
		line("training", "%s; %s: %s", rowsText(info), whose, fitText(cfg, info))
		whole = " (the whole fit: every trial and member)"
	} else {
		line("training", "%s; %s", rowsText(info), fitText(cfg, info))
	}
	line("", "%s%s, %d thread(s), GEMM kernel %s", durText(info.Seconds), whole, info.Threads, orUnknown(textOf(info.Kernel)))
	line("settings", "%s", settingsText(cfg))
	if p := info.Pretrain; p != nil {
		best := fmt.Sprintf(", best %d (validation MSE %s)", p.BestEpoch, short(p.BestValLoss))
		if info.ValRows == 0 {
			best = "" // no validation rows: the last epoch's encoder
		}
		line("pretrain", "the encoder under the pointwise head: %d epochs%s, stopped by %s, %s",
			p.Epochs, best, textOf(p.Stopped), durText(p.Seconds))
	}
	line("calibration", "%s", calibrationText(m, info))
	if k := m.EnsembleSize(); k > 1 {
		line("ensemble", "%d members, an equal mixture:", k)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  member\tepochs\tbest\tval_loss\tseed\tsettings\n")
		for i, mk := range m.Members() {
			c, in := mk.Config(), mk.Info()
			loss := fmtLoss(in.BestValLoss)
			if in.ValRows == 0 {
				loss = "-" // no validation rows
			}
			fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%d\t%s\n", i+1, in.Epochs, in.BestEpoch, loss, c.Seed, memberText(c))
		}
		tw.Flush()
	}
	if t := info.Tune; t != nil && len(t.Trials) > 0 {
		line("tune", "%d trial(s); val_loss is the best validation loss (lower is better); * marks the model's member(s):", len(t.Trials))
		var tb bytes.Buffer
		printTrials(&tb, t, false)
		for _, l := range strings.SplitAfter(tb.String(), "\n") {
			if l != "" {
				fmt.Fprint(w, "  "+l)
			}
		}
	}
}

// nameText writes a column's name as it is, or quoted where it is empty,
// has spaces at its ends, or holds characters that a line of text would
// not show as themselves (a tab, a newline).
func nameText(n string) string {
	if n == "" || strings.TrimSpace(n) != n {
		return data.QuoteCell(n)
	}
	return textOf(n)
}

// textOf writes a string of the model file's record (a version, a time, a
// kernel's name) as it is, or quoted where it holds characters that a
// line of text would not show as themselves: a file edited by hand could
// send escape codes or lines of its own to the terminal. A long one (a
// column named by a 1 MB header cell) is quoted and cut, as messages do.
func textOf(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s || len(s) > 160 {
		return data.QuoteName(s)
	}
	return s
}

// support returns the ends of a bounded unnormalized decoder's cells in
// units of y, for an ensemble the widest over its members: where its
// distributions can put mass; cut reports whether the extreme cells are
// cut at a fixed range's ends (vocab.BoundCut) in every member. ok is
// false for other models, and for an ensemble with a member of another
// kind.
func support(m *decoreg.Model) (lo, hi float64, cut, ok bool) {
	lo, hi, cut = math.Inf(1), math.Inf(-1), true
	for _, mk := range m.Members() {
		a, b, c, okk := memberSupport(mk)
		if !okk {
			return 0, 0, false, false
		}
		lo, hi, cut = min(lo, a), max(hi, b), cut && c
	}
	return lo, hi, cut, true
}

// memberSupport is support of a single model.
func memberSupport(m *decoreg.Model) (lo, hi float64, cut, ok bool) {
	cfg := m.Config()
	tok := m.Tokenizer()
	if r, ok := tok.(*vocab.Repeat); ok {
		tok = r.Inner() // repeated copies of one bounded tree
	}
	tr, isTree := tok.(vocab.Tree)
	if cfg.Head != decoreg.HeadDecoder || cfg.Unbounded || !isTree || !vocab.IsUnnormalized(tr) {
		return 0, 0, false, false
	}
	if b, ok := tr.(*vocab.Bounded); ok {
		cut = b.Cut()
	}
	tlo, thi := tr.Interval(nil)
	if cfg.RawTarget {
		return tlo, thi, cut, true
	}
	ylo, yhi := m.YRange()
	r := yhi - ylo
	return ylo + r*(tlo+0.5), ylo + r*(thi+0.5), cut, true // t = u - 0.5
}

// headText describes a configuration's head and its settings.
func headText(c decoreg.Config) string {
	switch c.Head {
	case decoreg.HeadDecoder:
		s := "decoder, tokenization " + c.Vocab
		var opts []string
		if c.RawTarget {
			opts = append(opts, "--raw-target")
		}
		if c.Unbounded {
			opts = append(opts, "--unbounded")
		}
		if c.UnmaskedLoss {
			opts = append(opts, "--unmasked-loss")
		}
		if len(opts) > 0 {
			s += " (" + strings.Join(opts, ", ") + ")"
		}
		return s
	case decoreg.HeadRiemann:
		return fmt.Sprintf("riemann, %d bins", c.Bins)
	case decoreg.HeadMDN:
		return fmt.Sprintf("mdn, %d %s", c.Components, plural(c.Components, "component", "components"))
	case decoreg.HeadPointwise:
		if c.Sigmoid {
			return "pointwise (squashed by a sigmoid)"
		}
		return "pointwise"
	}
	return string(c.Head)
}

// memberText describes an ensemble member's configuration briefly: its
// head's settings, network, input transform and soft targets.
func memberText(c decoreg.Config) string {
	var parts []string
	switch c.Head {
	case decoreg.HeadDecoder:
		parts = append(parts, c.Vocab)
	case decoreg.HeadRiemann:
		parts = append(parts, fmt.Sprintf("%d bins", c.Bins))
	case decoreg.HeadMDN:
		parts = append(parts, fmt.Sprintf("%d %s", c.Components, plural(c.Components, "component", "components")))
	}
	enc := c.Encoder
	if enc == "" {
		enc = decoreg.EncoderMLP
	}
	n := fmt.Sprintf("%s %dx%d", enc, c.EncLayers, c.EncWidth)
	if c.Head == decoreg.HeadDecoder {
		n += fmt.Sprintf(", decoder %dx%dx%d", c.DecLayers, c.DecWidth, c.DecHeads)
	}
	parts = append(parts, n)
	if t := c.InputTransform; t != "" && t != "standard" {
		parts = append(parts, "input "+t)
	}
	if c.SoftTargets > 0 {
		parts = append(parts, "soft targets "+short(c.SoftTargets))
	}
	return strings.Join(parts, "; ")
}

// networkText describes a configuration's encoder and decoder.
func networkText(c decoreg.Config) string {
	enc := c.Encoder
	if enc == "" {
		enc = decoreg.EncoderMLP
	}
	s := fmt.Sprintf("encoder %s %dx%d", enc, c.EncLayers, c.EncWidth)
	if enc == decoreg.EncoderPLR {
		s += fmt.Sprintf(" (%d frequencies, dim %d, sigma %s)", c.PLRFrequencies, c.PLRDim, short(c.PLRSigma))
	}
	if c.Dropout > 0 {
		s += fmt.Sprintf(", dropout %s", short(c.Dropout))
	}
	if c.Head == decoreg.HeadDecoder {
		s += fmt.Sprintf(", decoder %d layer(s) x %d, %d attention head(s)", c.DecLayers, c.DecWidth, c.DecHeads)
	}
	return s
}

// inputsText describes a configuration's input transform.
func inputsText(c decoreg.Config) string {
	switch t := c.InputTransform; t {
	case "", "standard":
		return "standardized (--input-transform standard)"
	case "quantile":
		return "each feature through its training ECDF to a normal (--input-transform quantile)"
	case "robust":
		return "each feature less its median, over its interquartile range (--input-transform robust)"
	case "ple":
		return fmt.Sprintf("piecewise linear encoding, up to %d bins per feature (--input-transform ple)", c.PLEBins)
	default:
		return fmt.Sprintf("--input-transform %s", t)
	}
}

// rowsText describes the rows a model was trained on.
func rowsText(in decoreg.TrainInfo) string {
	s := fmt.Sprintf("%s rows", grouped(in.Rows))
	if in.ValRows > 0 {
		s += fmt.Sprintf(", %s of them held out for validation", grouped(in.ValRows))
	}
	if in.SkippedRows > 0 {
		s += fmt.Sprintf(" (%s more skipped: no target)", grouped(in.SkippedRows))
	}
	return s
}

// fitText describes how the training of a model of configuration c went.
func fitText(c decoreg.Config, in decoreg.TrainInfo) string {
	s := fmt.Sprintf("%d epoch(s)", in.Epochs)
	if in.ValRows > 0 {
		s += fmt.Sprintf(", best %d (%s)", in.BestEpoch, lossText(c, in))
	}
	if in.Stopped != "" {
		s += ", stopped by " + textOf(in.Stopped)
	}
	if in.LRDrops > 0 {
		s += fmt.Sprintf(", %d learning-rate drop(s)", in.LRDrops)
	}
	return s
}

// lossText gives the validation loss of a model of configuration c and
// names it, as TrainInfo.BestValLoss documents it (u = the target scaled
// to [0, 1] by its training range).
func lossText(c decoreg.Config, in decoreg.TrainInfo) string {
	v := fmtLoss(in.BestValLoss)
	switch {
	case c.Head == decoreg.HeadPointwise:
		return "validation MSE " + v + ", of the scaled target"
	case c.StopBy == decoreg.StopByCRPS:
		return "validation CRPS " + v + ", in u units"
	case c.StopBy == decoreg.StopByDepth && in.Tune != nil && in.Tune.Resolution > 0:
		return fmt.Sprintf("validation NLL %s, in u units, calibrated per token depth, at a resolution of %.4g", v, in.Tune.Resolution)
	case c.StopBy == decoreg.StopByDepth:
		return "validation NLL " + v + ", in u units, calibrated per token depth"
	case in.Tune != nil && in.Tune.Resolution > 0:
		return fmt.Sprintf("validation NLL %s, in u units at a resolution of %.4g", v, in.Tune.Resolution)
	}
	return "validation NLL " + v + ", in u units"
}

// settingsText lists the training options of a configuration.
func settingsText(c decoreg.Config) string {
	parts := []string{"lr " + short(c.LR)}
	switch {
	case c.AdamW:
		parts = append(parts, "decoupled weight decay "+short(c.WeightDecay))
	case c.WeightDecay > 0:
		parts = append(parts, "weight decay "+short(c.WeightDecay))
	}
	val := fmt.Sprintf("patience %d, validation fraction %s", c.Patience, short(c.ValFrac))
	if c.ValFrac < 0 { // the library's "none" (--val-frac 0): no early stopping
		val = "validation fraction 0 (no validation rows, no early stopping)"
	}
	parts = append(parts, fmt.Sprintf("batch %d", c.BatchSize), fmt.Sprintf("max epochs %d", c.MaxEpochs),
		val, fmt.Sprintf("seed %d", c.Seed))
	if c.EMA > 0 {
		parts = append(parts, "ema "+short(c.EMA))
	}
	if c.LRDrops > 0 {
		parts = append(parts, fmt.Sprintf("lr drops %d by %s", c.LRDrops, short(c.LRDropFactor)))
	}
	if c.StopBy != "" {
		parts = append(parts, "stop by "+c.StopBy)
	}
	if c.SoftTargets > 0 {
		parts = append(parts, "soft targets "+short(c.SoftTargets))
	}
	if c.AuxMSE > 0 {
		parts = append(parts, "aux mse "+short(c.AuxMSE))
	}
	if c.Pretrain != "" {
		parts = append(parts, "pretrain "+c.Pretrain)
	}
	return strings.Join(parts, ", ")
}

// calibrationText describes a model's calibration.
func calibrationText(m *decoreg.Model, in decoreg.TrainInfo) string {
	if !m.Calibrated() && in.CalibrateBy == "" {
		return "none"
	}
	by := in.CalibrateBy
	if by == "" {
		by = "nll"
	}
	var s string
	switch {
	case len(in.DepthTemperatures) > 0:
		t := make([]string, len(in.DepthTemperatures))
		for i, v := range in.DepthTemperatures {
			t[i] = strconv.FormatFloat(v, 'g', 4, 64)
		}
		s = "temperatures per token depth " + strings.Join(t, ", ")
	default:
		s = "temperature " + strconv.FormatFloat(m.Temperature(), 'g', 4, 64)
	}
	if in.IsotonicSegments > 0 {
		s += fmt.Sprintf(", then an isotonic map of the CDF (%d segments, the identity's weight %s)", in.IsotonicSegments, short(in.IsotonicWeight))
	}
	s += " (--calibrate-by " + textOf(by)
	if in.CalibrateRows > 0 {
		s += fmt.Sprintf(", on %s validation rows", grouped(in.CalibrateRows))
	}
	s += ")"
	if in.ValNLLBefore != 0 || in.ValNLLAfter != 0 {
		s += fmt.Sprintf("; validation NLL %s -> %s", fmtLoss(in.ValNLLBefore), fmtLoss(in.ValNLLAfter))
	}
	if in.ValPITBefore != 0 || in.ValPITAfter != 0 {
		s += fmt.Sprintf(", PIT error %s -> %s", fmtLoss(in.ValPITBefore), fmtLoss(in.ValPITAfter))
	}
	return s
}

// short formats a number briefly (6 significant digits).
func short(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Sprint(v)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// interval writes [lo, hi] as short does, with more digits where those
// would not tell the ends apart ([1e9+0.1, 1e9+0.3] is not [1e+09, 1e+09]).
func interval(lo, hi float64) string {
	p := intervalPrec(lo, hi)
	return "[" + precFloat(lo, p) + ", " + precFloat(hi, p) + "]"
}

// intervalPrec is the number of significant digits interval writes: 6, or
// as many more as tell lo from hi.
func intervalPrec(lo, hi float64) int {
	p := 6
	for p < 17 && lo != hi && precFloat(lo, p) == precFloat(hi, p) {
		p++
	}
	return p
}

// precFloat writes v with prec significant digits (6: as short does).
func precFloat(v float64, prec int) string {
	if prec == 6 {
		return short(v)
	}
	return strconv.FormatFloat(v, 'g', prec, 64)
}

// intervalBeside is interval of [a, b], shown beside the range [lo, hi]:
// with at least the digits interval gives the range, and those that tell
// an end from the range's end where they differ by more than a few ulps
// (a support of [100000, 100005.01] read [100000, 100005], helper-120),
// so that ends a few ulps apart read alike (a support's end 99.99999999999999
// read 100 beside the range's 99.99999999999999, helper-123).
func intervalBeside(a, b, lo, hi float64) string {
	far := func(x, y float64) bool {
		return math.Abs(x-y) > 4*(math.Nextafter(math.Abs(y), math.Inf(1))-math.Abs(y))
	}
	for prec := intervalPrec(lo, hi); ; prec++ {
		fa, fb := precFloat(a, prec), precFloat(b, prec)
		told := (fa != fb || a == b) && !(far(a, lo) && fa == precFloat(lo, prec)) && !(far(b, hi) && fb == precFloat(hi, prec))
		if told || prec >= 17 {
			return "[" + fa + ", " + fb + "]"
		}
	}
}

// grouped writes n with commas between groups of three digits.
func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// durText writes a wall time in seconds as a duration.
func durText(s float64) string {
	return "trained in " + secs(s).Round(time.Millisecond).String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// naComma is the model's Schema.NADecimalComma (nil without a schema or
// in an older file).
func naComma(m *decoreg.Model) *bool {
	if sc := m.Schema(); sc != nil {
		return sc.NADecimalComma
	}
	return nil
}
