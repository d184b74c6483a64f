package experiments

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"decoreg"
	"decoreg/metrics"
)

var splitFile = regexp.MustCompile(`^split([0-9]+)\.json$`)

// LoadResults reads every result file under dir
// (dir/<dataset>/<head>/split<k>.json; other files are ignored). A result
// whose contents disagree with its path, or a file that is not a result,
// gives an error naming the file.
func LoadResults(dir string) ([]*Result, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*", "split*.json"))
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give the directory of bench uci's --out (its <dataset>/<head>/split<k>.json files)", dir)
	}
	var out []*Result
	for _, p := range paths {
		m := splitFile.FindStringSubmatch(filepath.Base(p))
		if m == nil {
			continue
		}
		r, err := ReadResult(p)
		if err != nil {
			return nil, err
		}
		head := filepath.Base(filepath.Dir(p))
		ds := filepath.Base(filepath.Dir(filepath.Dir(p)))
		if k, _ := strconv.Atoi(m[1]); r.Dataset != ds || r.Head != head || r.Split != k {
			return nil, fmt.Errorf("%s: holds the result of %s/%s/split%d", p, r.Dataset, r.Head, r.Split)
		}
		if want := fmt.Sprintf("split%d.json", r.Split); filepath.Base(p) != want {
			// split00.json beside split0.json would count one split twice.
			return nil, fmt.Errorf("%s: a result file's name is %s, as bench uci writes it", p, want)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no result files (<dataset>/<head>/split<k>.json)", dir)
	}
	return out, nil
}

// ReportOptions control WriteReport.
type ReportOptions struct {
	// Format is "markdown" (the default) or "csv".
	Format string
	// Splits is the number of splits of a complete cell; 0 means the most
	// runs any cell has.
	Splits int
}

// metric is one column of results summarised by the report.
type metric struct {
	key, title, note string
	get              func(*decoreg.Eval) float64
	higher           bool // higher is better
	prec             int  // decimals shown
	nobest           bool // the heads' values are not comparable: no bold
}

var reportMetrics = []metric{
	{"nll", "Test NLL (original y units)",
		"Mean ± std over splits of the test negative log-likelihood per unit of the original target; lower is better.",
		func(e *decoreg.Eval) float64 { return e.NLL }, false, 2, false},
	{"nll_u", "Test NLL_u (normalized units)",
		"The same in the units u = (y - y_min)/(y_max - y_min) of the train split's range: NLL_u = NLL - log(y_max - y_min).",
		func(e *decoreg.Eval) float64 { return e.NLLU }, false, 2, false},
	{"nll_token", "Test cross-entropy per token",
		"Mean ± std over splits of -log P(token sequence)/K in nats, the training loss per token (Riemann: -log P(bin), one token); " +
			"a probability, not a density, so it depends on the tokenization and is not comparable across heads. " +
			"MDN has no tokens, and no mean is in bold.",
		func(e *decoreg.Eval) float64 { return e.NLLToken }, false, 2, true},
	{"kendall_tau", "Kendall's tau",
		"Mean ± std over splits of Kendall's tau-b between the point estimates and the test targets; higher is better.",
		func(e *decoreg.Eval) float64 { return e.KendallTau }, true, 3, false},
}

// cell is one (dataset, head) summary of a metric.
type cell struct {
	vals      []float64
	runs      int // result files (failed ones included)
	failed    int
	mean, std float64
}

// table groups results by dataset and head.
type table struct {
	datasets, heads []string
	byKey           map[[2]string][]*Result
	splits          int
}

func newTable(rs []*Result, splits int) *table {
	t := &table{byKey: map[[2]string][]*Result{}}
	dsSeen, hSeen := map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		k := [2]string{r.Dataset, r.Head}
		t.byKey[k] = append(t.byKey[k], r)
		if !dsSeen[r.Dataset] {
			dsSeen[r.Dataset] = true
			t.datasets = append(t.datasets, r.Dataset)
		}
		hSeen[r.Head] = true
	}
	sort.Strings(t.datasets)
	for _, h := range BenchHeads {
		if hSeen[h] {
			t.heads = append(t.heads, h)
			delete(hSeen, h)
		}
	}
	var rest []string
	for h := range hSeen {
		rest = append(rest, h)
	}
	sort.Strings(rest)
	t.heads = append(t.heads, rest...)
	t.splits = splits
	if t.splits <= 0 {
		for _, v := range t.byKey {
			t.splits = max(t.splits, len(v))
		}
	}
	return t
}

func (t *table) cell(ds, head string, m metric) cell {
	var c cell
	rs := t.byKey[[2]string{ds, head}]
	sort.Slice(rs, func(i, j int) bool { return rs[i].Split < rs[j].Split })
	for _, r := range rs {
		c.runs++
		if r.Error != "" || r.Eval == nil {
			c.failed++
			continue
		}
		if v := m.get(r.Eval); !math.IsNaN(v) {
			c.vals = append(c.vals, v)
		}
	}
	c.mean, c.std = metrics.MeanStd(c.vals)
	return c
}

// hasMetric reports whether any result of head has a value of m (the
// pointwise head has no NLL).
func (t *table) hasMetric(head string, m metric) bool {
	failed := false
	for _, ds := range t.datasets {
		c := t.cell(ds, head, m)
		if len(c.vals) > 0 {
			return true
		}
		failed = failed || c.failed > 0
	}
	// A head whose runs all failed still gets its column, of failed cells.
	return failed && metricApplies(head, m.key)
}

// metricApplies reports whether the runs of head can have metric key: the
// pointwise head has no density and neither it nor mdn has tokens.
func metricApplies(head, key string) bool {
	switch key {
	case "nll", "nll_u":
		return head != "pointwise"
	case "nll_token":
		return head != "pointwise" && head != "mdn"
	}
	return true
}

func fmtNum(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	if math.Abs(v) >= 1e15 {
		// Past 2^53 'f' prints digits float64 does not hold (a 309-digit
		// cell for 1e308).
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', prec, 64) {
		s = s[1:]
	}
	return s
}

// WriteReport writes the summary of results rs: for each metric (test NLL
// in original units, NLL_u, Kendall's tau) a table with a row per dataset
// and a column per head holding mean ± std over splits (sample std,
// divisor n-1), the best mean of each row in bold (ties, as printed, all
// bold), cells with fewer than the full number of splits marked "(n/N)",
// a table of outlying runs (see OutlierNats) and the total run time.
func WriteReport(w io.Writer, rs []*Result, opts ReportOptions) error {
	t := newTable(rs, opts.Splits)
	if opts.Splits > 0 {
		// A cell of more splits would be summarised over all of them,
		// unmarked, under a footer saying every cell has opts.Splits.
		for _, ds := range t.datasets {
			for _, h := range t.heads {
				if n := len(t.byKey[[2]string{ds, h}]); n > opts.Splits {
					return &InputError{fmt.Errorf("--splits %d: the cell %s/%s has %d splits' runs; give at least %d (or 0: the most any cell has)", opts.Splits, ds, h, n, n)}
				}
			}
		}
	}
	switch opts.Format {
	case "", "markdown", "md":
		return t.markdown(w, rs)
	case "csv":
		return t.csv(w)
	}
	return fmt.Errorf("unknown report format %q (want markdown or csv)", opts.Format)
}

func (t *table) markdown(w io.Writer, rs []*Result) error {
	var b strings.Builder
	for _, m := range reportMetrics {
		var heads []string
		for _, h := range t.heads {
			if t.hasMetric(h, m) {
				heads = append(heads, h)
			}
		}
		if len(heads) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n%s", m.title, m.note)
		if m.nobest {
			b.WriteString("\n\n")
		} else if m.higher {
			b.WriteString(" The highest mean per row is in bold.\n\n")
		} else {
			b.WriteString(" The lowest mean per row is in bold.\n\n")
		}
		fmt.Fprintf(&b, "| dataset | %s |\n|---|%s\n", strings.Join(mdCells(heads), " | "), strings.Repeat("---:|", len(heads)))
		for _, ds := range t.datasets {
			cells := make([]cell, len(heads))
			best := ""
			bestV := math.NaN()
			for i, h := range heads {
				cells[i] = t.cell(ds, h, m)
				if len(cells[i].vals) == 0 {
					continue
				}
				v, err := strconv.ParseFloat(fmtNum(cells[i].mean, m.prec), 64)
				if err != nil {
					continue // Inf
				}
				if m.nobest {
					continue
				}
				if math.IsNaN(bestV) || (m.higher && v > bestV) || (!m.higher && v < bestV) {
					bestV, best = v, fmtNum(cells[i].mean, m.prec)
				}
			}
			fmt.Fprintf(&b, "| %s |", mdCell(ds))
			for _, c := range cells {
				b.WriteString(" " + t.cellText(c, m, best) + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	t.outliers(&b)
	t.mixedSettings(&b)
	fmt.Fprintf(&b, "Every cell summarises %d %s unless marked (n/%d): only n splits have a value, because runs are not yet done, "+
		"or failed (\"failed\" counts runs that wrote no model, e.g. diverged), or, for Kendall's tau, because tau is undefined "+
		"when every point estimate or every test target of a split is the same; — marks a cell without results.\n\n", t.splits, plural(t.splits, "split"), t.splits)
	b.WriteString(runSummary(rs))
	_, err := io.WriteString(w, b.String())
	return err
}

// settingsKey is what must agree among the results of a cell for its mean
// to be one setting's: the configuration trained (less its thread count,
// which does not change what is computed; a sweep's choice varies by split,
// so a swept run counts as "sweep") and the point estimate of MSE and tau.
func settingsKey(r *Result) string {
	k := "sweep"
	if r.Sweep == nil {
		b, _ := json.Marshal(computed(r.Config))
		k = string(b)
	}
	if r.Eval != nil {
		k += " point=" + r.Eval.Point
	}
	return k
}

// mixedSettings writes the cells whose results were run with different
// settings or on different files of the dataset (bench uci into a
// directory that holds other runs: it warns about, and keeps, an existing
// result of other settings or data, and adds new splits with the new
// ones), whose means mix them. Nothing when none do.
func (t *table) mixedSettings(b *strings.Builder) {
	var rows []string
	for _, ds := range t.datasets {
		for _, h := range t.heads {
			n, files := map[string]int{}, map[string]bool{}
			for _, r := range t.byKey[[2]string{ds, h}] {
				n[settingsKey(r)]++
				if r.Data != "" { // results from before fingerprints are not compared
					files[r.Data] = true
				}
			}
			if len(n) > 1 || len(files) > 1 {
				rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d |\n", mdCell(ds), mdCell(h), len(n), max(len(files), 1)))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Cells that mix settings\n\nThe runs of these cells were trained or scored with different settings " +
		"(configuration, sweep or point estimate) or on different files of the dataset (another --data: the results' data fingerprints differ), " +
		"so their means above mix them; rerun them with one setting on one data directory (delete the others' result files).\n\n")
	b.WriteString("| dataset | head | settings | data files |\n|---|---|---:|---:|\n")
	for _, r := range rows {
		b.WriteString(r)
	}
	b.WriteString("\n")
}

// OutlierNats is how far, in nats, a run's test NLL must exceed the median
// of its (dataset, head) cell for the report to list it as outlying.
const OutlierNats = 5

// outliers writes a table of the runs whose test NLL exceeds the median of
// their cell (at least 3 runs) by more than OutlierNats: a single such run
// can dominate its cell's mean ± std, so the table gives the cell's median
// and its mean without the outlying runs beside it. Nothing is written
// when there are none.
func (t *table) outliers(b *strings.Builder) {
	m := reportMetrics[0] // NLL in original units
	var rows []string
	for _, ds := range t.datasets {
		for _, h := range t.heads {
			// The cell's runs that have an NLL, in split order.
			var runs []*Result
			var vals []float64
			for _, r := range t.byKey[[2]string{ds, h}] {
				if r.Eval != nil && r.Error == "" && !math.IsNaN(m.get(r.Eval)) {
					runs, vals = append(runs, r), append(vals, m.get(r.Eval))
				}
			}
			if len(vals) < 3 {
				continue
			}
			sort.Slice(runs, func(i, j int) bool { return runs[i].Split < runs[j].Split })
			med := metrics.Median(vals)
			var kept []float64
			var out []*Result
			for _, r := range runs {
				if v := m.get(r.Eval); v-med > OutlierNats || math.IsInf(v, 1) {
					out = append(out, r)
				} else {
					kept = append(kept, v)
				}
			}
			mean, _ := metrics.MeanStd(kept)
			for _, r := range out {
				rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s | %s | %s |\n", mdCell(ds), mdCell(h), r.Split,
					fmtOutlier(m.get(r.Eval)), fmtNum(med, m.prec), fmtNum(mean, m.prec)))
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "## Outlying runs\n\nRuns whose test NLL (original y units) exceeds the median of their cell by more than %d nats. "+
		"Such a run weighs heavily on its cell's mean ± std above; the cell's median, and its mean without the outlying runs, are beside it.\n\n", OutlierNats)
	b.WriteString("| dataset | head | split | NLL | cell median | cell mean without |\n|---|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		b.WriteString(r)
	}
	b.WriteString("\n")
}

// fmtOutlier prints large values in exponent form.
func fmtOutlier(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return fmtNum(v, 2)
}

// cellText formats a cell: "mean ± std", bold when its mean prints as best,
// with "(n/N)" when incomplete.
func (t *table) cellText(c cell, m metric, best string) string {
	if c.runs == 0 {
		return "—"
	}
	var s string
	switch len(c.vals) {
	case 0:
		s = "—"
	case 1:
		s = fmtNum(c.mean, m.prec)
	default:
		s = fmtNum(c.mean, m.prec) + " ± " + fmtNum(c.std, m.prec)
	}
	if len(c.vals) > 0 && fmtNum(c.mean, m.prec) == best {
		s = "**" + s + "**"
	}
	if len(c.vals) < t.splits {
		var note []string
		note = append(note, fmt.Sprintf("%d/%d", len(c.vals), t.splits))
		if c.failed > 0 {
			note = append(note, fmt.Sprintf("%d failed", c.failed))
		}
		s += " (" + strings.Join(note, ", ") + ")"
	}
	return s
}

// runSummary states the total run time and where the runs ran.
func runSummary(rs []*Result) string {
	var total float64
	var first, last time.Time
	kernels, procs, commits, hosts := map[string]bool{}, map[int]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		total += r.Seconds
		if s, err := time.Parse(time.RFC3339, r.Started); err == nil && (first.IsZero() || s.Before(first)) {
			first = s
		}
		if f, err := time.Parse(time.RFC3339, r.Finished); err == nil && f.After(last) {
			last = f
		}
		if r.Kernel != "" {
			kernels[r.Kernel] = true
		}
		procs[r.GoMaxProcs] = true
		if r.Commit != "" {
			commits[r.Commit] = true
		}
		if r.Host != "" {
			hosts[r.Host] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Total run time: %s over %d runs (sum of the runs' wall times)", fmtDuration(total), len(rs))
	if !first.IsZero() && last.After(first) {
		// In float seconds: Sub saturates at 292 years.
		span := float64(last.Unix()-first.Unix()) + float64(last.Nanosecond()-first.Nanosecond())/1e9
		fmt.Fprintf(&b, "; %s from the first start to the last finish", fmtDuration(span))
	}
	b.WriteString(".\n")
	var ps []string
	for p := range procs {
		ps = append(ps, strconv.Itoa(p))
	}
	sort.Strings(ps)
	fmt.Fprintf(&b, "Machines: %d host(s); GOMAXPROCS %s; kernel %s; commit %s.\n",
		len(hosts), strings.Join(ps, ", "), keys(kernels), keys(commits))
	return b.String()
}

// mdCell makes s one cell of a markdown table: a bar escaped, line
// breaks as spaces (a data set named "a|b" split its row).
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ").Replace(s)
}

// mdCells is mdCell of each of ss.
func mdCells(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdCell(s)
	}
	return out
}

func keys(m map[string]bool) string {
	if len(m) == 0 {
		return "unknown"
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// fmtDuration formats seconds as "1h02m03s", "2m03s" or "3.4s".
func fmtDuration(s float64) string {
	if !(s >= 0 && s < 1e9) { // beyond time.Duration's 292 years, or not a time
		return strconv.FormatFloat(s, 'g', 4, 64) + "s"
	}
	if s < 60 {
		return strconv.FormatFloat(s, 'f', 1, 64) + "s"
	}
	d := time.Duration(math.Round(s)) * time.Second
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	}
	return fmt.Sprintf("%dm%02ds", m, sec)
}

// csv writes one line per (dataset, head, metric): the numbers behind the
// markdown tables.
func (t *table) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "head", "metric", "splits", "failed", "mean", "std"})
	for _, ds := range t.datasets {
		for _, h := range t.heads {
			for _, m := range reportMetrics {
				c := t.cell(ds, h, m)
				if c.runs == 0 {
					continue
				}
				f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
				cw.Write([]string{ds, h, m.key, strconv.Itoa(len(c.vals)), strconv.Itoa(c.failed), f(c.mean), f(c.std)})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
