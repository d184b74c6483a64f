package decoreg

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg/data"
)

var updateTestdata = flag.Bool("update-testdata", false, "rewrite testdata/mixed.csv from mixedCSV")

// mixedPath is a table with text columns and missing cells, written by
// mixedCSV (go test -run TestMixedTestdata -update-testdata), and
// mixedTestPath 100 more rows of the same kind (another seed), to test on.
const (
	mixedPath     = "testdata/mixed.csv"
	mixedTestPath = "testdata/mixed-test.csv"
)

// mixedCSV generates the rows of testdata/mixed.csv, deterministically: a
// house price (price, in thousands; blank on 1 row in 25) from its area
// (m2; blank on 1 row in 12), rooms, city (five cities; "NA" on 1 row in
// 20), heating (gas, electric, heat-pump; blank on 1 row in 15), garden
// (yes/no) and year built ("?" on 1 row in 18).
func mixedCSV(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	cities := []string{"Lyon", "Paris", "Nantes", "Lille", "Toulouse"}
	cityEffect := []float64{40, 150, 10, -10, 20}
	heatings := []string{"gas", "electric", "heat-pump"}
	heatEffect := []float64{0, -15, 25}
	var b strings.Builder
	b.WriteString("area,rooms,city,heating,garden,year,price\n")
	for i := range n {
		area := 30 + 120*r.Float64()
		rooms := 1 + int(area/25) + r.IntN(2)
		c := r.IntN(len(cities))
		h := r.IntN(len(heatings))
		garden := r.IntN(3) == 0
		year := 1900 + r.IntN(124)
		price := 50 + 2.5*area + cityEffect[c] + heatEffect[h] + 0.3*float64(year-1960) + 15*r.NormFloat64()
		if garden {
			price += 30
		}
		cell := func(s string, every int) string {
			if i%every == every-1 {
				return ""
			}
			return s
		}
		city := cities[c]
		if i%20 == 7 {
			city = "NA"
		}
		yearCell := strconv.Itoa(year)
		if i%18 == 5 {
			yearCell = "?"
		}
		gardenCell := "no"
		if garden {
			gardenCell = "yes"
		}
		fmt.Fprintf(&b, "%s,%d,%s,%s,%s,%s,%s\n", cell(strconv.FormatFloat(area, 'f', 1, 64), 12), rooms, city,
			cell(heatings[h], 15), gardenCell, yearCell, cell(strconv.FormatFloat(price, 'f', 1, 64), 25))
	}
	return b.String()
}

// TestMixedTestdata: testdata/mixed.csv and mixed-test.csv are what
// mixedCSV generates.
func TestMixedTestdata(t *testing.T) {
	for _, c := range []struct {
		path string
		n    int
		seed uint64
	}{{mixedPath, 300, 13}, {mixedTestPath, 100, 14}} {
		want := mixedCSV(c.n, c.seed)
		if *updateTestdata {
			if err := os.WriteFile(c.path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s differs from mixedCSV(%d, %d); regenerate it with go test -run TestMixedTestdata -update-testdata", c.path, c.n, c.seed)
		}
	}
}

// mixedConfig is a small, fast configuration for the frame tests.
func mixedConfig(h Head) Config {
	cfg := Config{Head: h, EncLayers: 1, EncWidth: 32, MaxEpochs: 5, Seed: 3, Threads: 1}
	if h == HeadDecoder {
		cfg.Vocab = "normalized:base=4,length=4"
	}
	return cfg
}

func readMixed(t *testing.T) *data.Frame {
	t.Helper()
	f, err := data.ReadFrame(mixedPath, data.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFitFrame trains on a table with text columns and missing cells:
// the schema has the expected columns, kinds, levels and indicators, rows
// with a missing target are skipped and counted, and the model predicts
// the same after Save and Load.
func TestFitFrame(t *testing.T) {
	f := readMixed(t)
	m, err := FitFrame(context.Background(), f, "price", mixedConfig(HeadMDN))
	if err != nil {
		t.Fatal(err)
	}
	missingY := 0
	for _, miss := range f.Columns[f.Column("price")].Missing {
		if miss {
			missingY++
		}
	}
	if info := m.Info(); missingY != 12 || info.SkippedRows != missingY || info.Rows != f.Rows-missingY {
		t.Errorf("skipped %d rows, trained on %d; the file has %d rows, %d without a target (want 12)", info.SkippedRows, info.Rows, f.Rows, missingY)
	}
	s := m.Schema()
	if s == nil {
		t.Fatal("no schema")
	}
	if got := strings.Join(m.Columns(), ","); got != "area,rooms,city,heating,garden,year" {
		t.Errorf("columns %s", got)
	}
	wantNames := []string{"area", "area:missing", "rooms", "city=Lille", "city=Lyon", "city=Nantes", "city=Paris", "city=Toulouse", "city:missing",
		"heating=electric", "heating=gas", "heating=heat-pump", "heating:missing", "garden=no", "garden=yes", "year", "year:missing"}
	if names, target := m.Names(); !slices.Equal(names, wantNames) || target != "price" || m.Features() != len(wantNames) {
		t.Errorf("encoded features %q (target %q), want %q", names, target, wantNames)
	}
	kinds := map[string]data.Kind{"area": data.Numeric, "rooms": data.Numeric, "city": data.Categorical, "heating": data.Categorical, "garden": data.Categorical, "year": data.Numeric}
	for _, c := range s.Columns {
		if kinds[c.Name] != c.Kind {
			t.Errorf("column %q is %s, want %s", c.Name, c.Kind, kinds[c.Name])
		}
	}

	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Schema().Names(), s.Names()) || !reflect.DeepEqual(l.Schema(), s) {
		t.Errorf("schema after Load %+v, want %+v", l.Schema(), s)
	}
	opts := PredictOptions{Outputs: OutMean | OutQuantiles}
	p1, err := m.PredictFrame(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := l.PredictFrame(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1.Mean, p2.Mean) || len(p1.Mean) != f.Rows {
		t.Errorf("predictions differ after Load")
	}
	for i, v := range p1.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("row %d: mean %v", i, v)
		}
	}
	if len(p1.Warnings) != 0 {
		t.Errorf("warnings on the training data: %v", p1.Warnings)
	}

	// EvaluateFrame skips the rows without a target.
	e, err := l.EvaluateFrame(context.Background(), f, "price", "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Skipped != missingY || e.N != f.Rows-missingY || math.IsNaN(e.NLL) {
		t.Errorf("evaluated %d rows, skipped %d, nll %v", e.N, e.Skipped, e.NLL)
	}
}

// TestPredictFrameUnseenAndMissing: a level not seen in training and
// missing cells in every column are predicted, with warnings for the
// unseen level and for the missing cell of a column that had none in
// training; the unseen level is encoded as no level at all.
func TestPredictFrameUnseenAndMissing(t *testing.T) {
	f := readMixed(t)
	m, err := FitFrame(context.Background(), f, "price", mixedConfig(HeadRiemann))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "new.csv")
	body := "price,year,garden,heating,city,rooms,area,extra\n" +
		",1990,yes,gas,Marseille,3,80,x\n" + // unseen city
		",,,,,,,\n" + // everything missing
		",NA,no,?,Paris,NaN,55,y\n"
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := data.ReadFrame(in, data.FrameOptions{Kinds: m.Schema().Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := m.EncodeFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := m.Names()
	at := func(row int, name string) float64 { return enc.X[row*enc.Cols+slices.Index(names, name)] }
	for _, n := range names {
		if strings.HasPrefix(n, "city=") && at(0, n) != 0 {
			t.Errorf("unseen city: %s = %v, want 0", n, at(0, n))
		}
	}
	if at(0, "city:missing") != 0 || at(1, "city:missing") != 1 || at(1, "area:missing") != 1 || at(1, "area") != m.Schema().Columns[0].Median {
		t.Errorf("missing cells: city:missing %v, %v; area:missing %v, area %v", at(0, "city:missing"), at(1, "city:missing"), at(1, "area:missing"), at(1, "area"))
	}
	// rooms had no missing cell in training: imputed, without an indicator.
	var roomsMedian float64
	for _, c := range m.Schema().Columns {
		if c.Name == "rooms" {
			roomsMedian = c.Median
		}
	}
	if at(1, "rooms") != roomsMedian || at(2, "rooms") != roomsMedian || slices.Contains(names, "rooms:missing") {
		t.Errorf("rooms imputed with %v, %v; median %v", at(1, "rooms"), at(2, "rooms"), roomsMedian)
	}
	p, err := m.PredictFrame(context.Background(), g, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	ws := fmt.Sprint(p.Warnings)
	if len(p.Warnings) != 3 || !strings.Contains(ws, "city") || !strings.Contains(ws, `"Marseille"`) || !strings.Contains(ws, "rooms") || !strings.Contains(ws, "garden") {
		t.Errorf("warnings %v: want the unseen city and the missing rooms and garden", p.Warnings)
	}
	// garden is categorical: its missing cell is no level, not a median.
	for _, w := range p.Warnings {
		switch w.Column {
		case "rooms", "garden":
			want := map[string]string{"rooms": "imputed with the training median", "garden": "encoded as no level"}[w.Column]
			if w.Categorical != (w.Column == "garden") || !strings.Contains(w.String(), want) {
				t.Errorf("warning %q (categorical %v): want %q", w, w.Categorical, want)
			}
		}
	}
	for i, v := range p.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("row %d: mean %v", i, v)
		}
	}
	// A numeric column with text, when the model reads it as numeric, is
	// an error naming the file, line and column.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("area,rooms,city,heating,garden,year\n50,2,Lyon,gas,no,1990\n60,three,Lyon,gas,no,1990\n"), 0o644)
	_, err = data.ReadFrame(bad, data.FrameOptions{Kinds: m.Schema().Kinds()})
	if err == nil || !strings.Contains(err.Error(), "bad.csv: line 3, column 2") || !strings.Contains(err.Error(), `"three"`) {
		t.Errorf("text in a numeric column: %v", err)
	}
	// Read without the schema's kinds, the column is categorical: the
	// model refuses it, naming the cell.
	g, err = data.ReadFrame(bad, data.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.PredictFrame(context.Background(), g, PredictOptions{}); err == nil || !strings.Contains(err.Error(), "bad.csv: line 3, column 2") || !errors.Is(err, data.ErrNotNumber) {
		t.Errorf("text in a numeric column, inferred categorical: %v", err)
	}
}

// TestFitFrameErrors: too many levels, a text target, no rows with a
// target, and a model without a schema reading a frame by name.
func TestFitFrameErrors(t *testing.T) {
	f := readMixed(t)
	_, err := FitFrame(context.Background(), f, "price", mixedConfig(HeadMDN), WithMaxLevels(4))
	var le *data.LevelsError
	if !errors.As(err, &le) || le.Column != "city" || le.Levels != 5 || le.Max != 4 || !strings.Contains(err.Error(), "mixed.csv") {
		t.Errorf("5 cities with at most 4 levels: %v", err)
	}
	if _, err := FitFrame(context.Background(), f, "city", mixedConfig(HeadMDN)); err == nil || !errors.Is(err, data.ErrNotNumber) || !strings.Contains(err.Error(), `column "city"`) {
		t.Errorf("a text target: %v", err)
	}
	if _, err := FitFrame(context.Background(), f, "nope", mixedConfig(HeadMDN)); !errors.Is(err, data.ErrNoColumn) {
		t.Errorf("no target column: %v", err)
	}
	// A second column named as the target: refused (the first was taken
	// and the second dropped).
	dup := &data.Frame{Path: f.Path, Rows: f.Rows, Lines: f.Lines, NA: f.NA, Columns: slices.Clone(f.Columns)}
	area := dup.Column("area")
	dup.Columns[area].Name = "price"
	if _, err := FitFrame(context.Background(), dup, "price", mixedConfig(HeadMDN)); !errors.Is(err, data.ErrDuplicateColumn) || !strings.Contains(err.Error(), `the target "price" names 2 columns`) {
		t.Errorf("two columns named as the target: %v", err)
	}
	noY := f.Subset([]int{24, 49, 74})
	if _, err := FitFrame(context.Background(), noY, "price", mixedConfig(HeadMDN)); !errors.Is(err, ErrTooFewRows) {
		t.Errorf("no targets: %v", err)
	}

	// A model of FitFlat reads a frame's numeric columns by name, and
	// refuses a missing cell.
	num, err := f.Select("rooms", "area", "price")
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 0, 2*f.Rows)
	y := make([]float64, 0, f.Rows)
	for i := range f.Rows {
		x = append(x, f.Columns[1].Num[i], float64(i%7))
		y = append(y, float64(i%5))
	}
	m, err := FitFlat(context.Background(), x, f.Rows, 2, y, mixedConfig(HeadMDN))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetNames([]string{"rooms", "area"}, "price"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.PredictFrame(context.Background(), num, PredictOptions{}); err == nil || !strings.Contains(err.Error(), "mixed.csv: line 13, column 1") {
		t.Errorf("a missing area for a model without a schema: %v", err)
	}
	ok := num.Subset([]int{0, 1, 2})
	p, err := m.PredictFrame(context.Background(), ok, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.PredictFlat(context.Background(), []float64{ok.Columns[0].Num[0], ok.Columns[1].Num[0]}, 1, PredictOptions{Outputs: OutMean})
	if p.Mean[0] != want.Mean[0] || m.Schema() != nil {
		t.Errorf("by name: %v, want %v", p.Mean[0], want.Mean[0])
	}
}

// TestOldModelNoSchema: a model file written before schemas existed loads
// without one and reads a frame by position.
func TestOldModelNoSchema(t *testing.T) {
	m, err := Load("testdata/v0.1.0-mdn.model")
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema() != nil {
		t.Fatalf("an old model has a schema")
	}
	t.Logf("columns %v, %d features", m.Columns(), m.Features())
	d := m.Features()
	f := &data.Frame{Rows: 1}
	row := make([]float64, d)
	for j := range d {
		row[j] = 0.1 * float64(j)
		name := fmt.Sprintf("c%d", j)
		if cols := m.Columns(); cols != nil {
			name = cols[j]
		}
		f.Columns = append(f.Columns, data.Column{Name: name, Kind: data.Numeric, Field: -1,
			Str: []string{fmt.Sprint(row[j])}, Num: []float64{row[j]}, Missing: []bool{false}})
	}
	p, err := m.PredictFrame(context.Background(), f, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.PredictFlat(context.Background(), row, 1, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mean[0] != want.Mean[0] {
		t.Errorf("PredictFrame %v, PredictFlat %v", p.Mean[0], want.Mean[0])
	}
}

// TestLoadChecksSchema: a model file whose schema does not fit the model
// (its width, its names, its contents) is refused by Load naming the
// field; a file without the field loads as before (no schema).
func TestLoadChecksSchema(t *testing.T) {
	header, params := savedModel(t, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8})
	good := map[string]any{"columns": []any{
		map[string]any{"name": "a", "kind": "numeric", "median": 3},
		map[string]any{"name": "b", "kind": "numeric"},
	}, "na": []any{"NA"}}
	m, err := Load(writeModel(t, editHeader(t, header, func(h map[string]any) { h["schema"] = good }), params))
	if err != nil || m.Schema() == nil || m.Schema().Columns[0].Median != 3 {
		t.Fatalf("a schema that fits: %v", err)
	}
	if m, err := Load(writeModel(t, header, params)); err != nil || m.Schema() != nil {
		t.Fatalf("no schema: %v, %v", err, m.Schema())
	}
	cases := []struct {
		schema any
		field  string
	}{
		{map[string]any{"columns": []any{map[string]any{"name": "a", "kind": "numeric"}}}, "schema"},                                              // 1 feature for 2
		{map[string]any{"columns": []any{map[string]any{"name": "a", "kind": "numeric", "missing": true}}}, "features"},                           // names a, a:missing
		{map[string]any{"columns": []any{map[string]any{"name": "a", "kind": "text"}, map[string]any{"name": "b", "kind": "numeric"}}}, "schema"}, // kind
		{map[string]any{"columns": []any{map[string]any{"name": "a", "kind": "categorical", "levels": []any{"y", "x"}}}}, "schema"},               // unsorted
		{map[string]any{"columns": []any{map[string]any{"name": "a", "kind": "numeric"}, map[string]any{"name": "y", "kind": "numeric"}}}, "features"},
	}
	for i, c := range cases {
		_, err := Load(writeModel(t, editHeader(t, header, func(h map[string]any) { h["schema"] = c.schema }), params))
		var me *ModelError
		if !errors.As(err, &me) || me.Field != c.field {
			t.Errorf("case %d: %v, want a ModelError about %q", i, err, c.field)
		}
	}
}

// TestSaveChecksSchemaNames: names that do not fit the schema are refused
// by SetNames (Load would refuse them), and leave the model's as they were.
func TestSaveChecksSchemaNames(t *testing.T) {
	m, err := FitFrame(context.Background(), readMixed(t), "price", mixedConfig(HeadMDN))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := m.Names()
	if err := m.SetNames(names, "city"); err == nil {
		t.Errorf("a target among the schema's columns taken")
	}
	names = slices.Clone(names)
	names[0] = "surface"
	if err := m.SetNames(names, "price"); err == nil {
		t.Errorf("renamed features taken")
	}
	if err := m.SetNames(nil, "price2"); err != nil {
		t.Errorf("a new target name: %v", err)
	}
	if f, tg := m.Names(); !slices.Equal(f, m.Schema().Names()) || tg != "price2" {
		t.Errorf("SetNames(nil, price2) on a frame's model: names %q, %q", f, tg)
	}
	if err := m.Save(filepath.Join(t.TempDir(), "m.model")); err != nil {
		t.Errorf("after refused names: %v", err)
	}
}

// TestFrameMisbuilt: a frame whose Rows exceeds its columns' lengths, or a
// nil frame, is an error for every function that takes one (FitFrame and
// EvaluateFrame indexed past the columns; nil dereferenced), and a nil
// FitOption is ignored; Names returns a copy.
func TestFrameMisbuilt(t *testing.T) {
	a, y := make([]float64, 20), make([]float64, 20)
	for i := range a {
		a[i], y[i] = float64(i), float64(i%7)
	}
	col := func(name string, v []float64) data.Column {
		return data.Column{Name: name, Kind: data.Numeric, Field: -1, Num: v, Missing: make([]bool, len(v))}
	}
	good := &data.Frame{Rows: 20, Columns: []data.Column{col("a", a), col("t", y)}}
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1}
	m, err := FitFrame(context.Background(), good, "t", cfg, nil)
	if err != nil {
		t.Fatalf("a nil FitOption: %v", err)
	}
	if _, err := FitFlat(context.Background(), a, 20, 1, y, cfg, nil, WithMaxLevels(10)); err != nil {
		t.Errorf("FitFlat with a nil FitOption: %v", err)
	}
	bad := &data.Frame{Rows: 21, Columns: good.Columns}
	for name, f := range map[string]*data.Frame{"Rows past the columns": bad, "nil": nil} {
		if _, err := FitFrame(context.Background(), f, "t", cfg); err == nil {
			t.Errorf("%s: FitFrame accepted it", name)
		}
		if _, err := m.EvaluateFrame(context.Background(), f, "t", ""); err == nil {
			t.Errorf("%s: EvaluateFrame accepted it", name)
		}
		if _, err := m.PredictFrame(context.Background(), f, PredictOptions{}); err == nil {
			t.Errorf("%s: PredictFrame accepted it", name)
		}
		if _, err := m.EncodeFrame(f); err == nil {
			t.Errorf("%s: EncodeFrame accepted it", name)
		}
	}
	// No rows: nil slices are no fault, the missing rows are.
	empty := &data.Frame{Columns: []data.Column{{Name: "a", Kind: data.Numeric, Field: -1}, {Name: "t", Kind: data.Numeric, Field: -1}}}
	if err := empty.Check(); err != nil {
		t.Errorf("a frame of no rows: Check: %v", err)
	}
	if _, err := FitFrame(context.Background(), empty, "t", cfg); !errors.Is(err, ErrTooFewRows) || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("FitFrame on no rows: %v", err)
	}
	if _, err := m.EvaluateFrame(context.Background(), empty, "t", ""); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("EvaluateFrame on no rows: %v", err)
	}
	if p, err := m.PredictFrame(context.Background(), empty, PredictOptions{}); err == nil && len(p.Mean) != 0 {
		t.Errorf("PredictFrame on no rows: %d means", len(p.Mean))
	}
	nilNum := &data.Frame{Rows: 20, Columns: []data.Column{{Name: "a", Kind: data.Numeric, Field: -1, Missing: make([]bool, 20)}, good.Columns[1]}}
	if err := nilNum.Check(); err == nil || !strings.Contains(err.Error(), `column "a" is numeric but has no values`) {
		t.Errorf("a numeric column without values: %v", err)
	}
	names, _ := m.Names()
	names[0] = "t"
	if again, _ := m.Names(); again[0] != "a" {
		t.Errorf("Names shares the model's slice: %v", again)
	}
}

// A model of FitFlat without names evaluates a frame's columns other than
// the target as its features, by position, wherever the target stands, as
// Evaluate does on the same numbers.
func TestEvaluateFrameUnnamed(t *testing.T) {
	x, y := toyData(60, 3)
	x2 := make([]float64, 0, 2*len(y))
	for _, v := range x {
		x2 = append(x2, v, v*v)
	}
	cfg := small(HeadMDN, "")
	m, err := FitFlat(context.Background(), x2, len(y), 2, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Evaluate(context.Background(), x2, len(y), y, "")
	if err != nil {
		t.Fatal(err)
	}
	sq := make([]float64, len(x))
	for i, v := range x {
		sq[i] = v * v
	}
	col := func(name string, v []float64) data.Column {
		return data.Column{Name: name, Kind: data.Numeric, Field: -1, Num: v, Missing: make([]bool, len(v))}
	}
	for _, order := range [][]string{{"a", "b", "y"}, {"y", "a", "b"}, {"a", "y", "b"}} {
		f := &data.Frame{Rows: len(y)}
		for _, n := range order {
			f.Columns = append(f.Columns, col(n, map[string][]float64{"a": x, "b": sq, "y": y}[n]))
		}
		got, err := m.EvaluateFrame(context.Background(), f, "y", "")
		if err != nil {
			t.Errorf("columns %v: %v", order, err)
			continue
		}
		if got.NLL != want.NLL || got.KendallTau != want.KendallTau {
			t.Errorf("columns %v: NLL %v, tau %v; Evaluate gives %v, %v", order, got.NLL, got.KendallTau, want.NLL, want.KendallTau)
		}
	}
	// A column too many is still refused, the target not counted.
	f := &data.Frame{Rows: len(y), Columns: []data.Column{col("a", x), col("b", sq), col("c", sq), col("y", y)}}
	if _, err := m.EvaluateFrame(context.Background(), f, "y", ""); err == nil || !strings.Contains(err.Error(), "3 columns for the model's 2 features") {
		t.Errorf("a column too many: %v", err)
	}
}

// TestFrameErrorsAreBadInput: errors about a frame's contents or shape (a
// NaN cell, a missing input or target column, duplicate names, a
// malformed or nil frame) wrap ErrBadInput, as the package's errors
// section says bad data does, beside package data's own error: they did
// not, so a service mapping ErrBadInput to 400 answered them 500 (review).
func TestFrameErrorsAreBadInput(t *testing.T) {
	a, y := make([]float64, 20), make([]float64, 20)
	for i := range a {
		a[i], y[i] = float64(i), float64(i%7)
	}
	col := func(name string, v []float64) data.Column {
		return data.Column{Name: name, Kind: data.Numeric, Field: -1, Num: v, Missing: make([]bool, len(v))}
	}
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1}
	m, err := FitFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", a), col("t", y)}}, "t", cfg)
	if err != nil {
		t.Fatal(err)
	}
	nan := slices.Clone(a)
	nan[3] = math.NaN()
	cases := map[string]error{}
	_, cases["a NaN cell"] = m.PredictFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", nan)}}, PredictOptions{})
	_, cases["a missing input column"] = m.PredictFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("b", a)}}, PredictOptions{})
	_, cases["a malformed frame"] = m.PredictFrame(context.Background(), &data.Frame{Rows: 21, Columns: []data.Column{col("a", a)}}, PredictOptions{})
	_, cases["no target column"] = m.EvaluateFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", a)}}, "t", "")
	_, cases["duplicate names"] = FitFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", a), col("a", a), col("t", y)}}, "t", cfg)
	_, cases["a nil frame"] = FitFrame(context.Background(), nil, "t", cfg)
	for name, err := range cases {
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v does not wrap ErrBadInput", name, err)
		}
	}
	if err := cases["a NaN cell"]; !errors.Is(err, data.ErrNonFinite) || strings.Contains(err.Error(), "bad input") {
		t.Errorf("a NaN cell: %v, want data's error as it was", err)
	}
	// Training and evaluation name a NaN or infinite cell not marked
	// missing as prediction does (FitFrame said the schema's "range [NaN
	// 19]", EvaluateFrame had no "decoreg:"; helper-145).
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		bad := slices.Clone(a)
		bad[5] = v
		_, err := FitFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", bad), col("t", y)}}, "t", cfg)
		want := fmt.Sprintf(`decoreg: row 5, column "a": not a finite number: %v`, v)
		if !errors.Is(err, ErrBadInput) || !errors.Is(err, data.ErrNonFinite) || err.Error() != want {
			t.Errorf("FitFrame with %v in a feature: %v, want %q", v, err, want)
		}
		_, err = m.EvaluateFrame(context.Background(), &data.Frame{Rows: 20, Columns: []data.Column{col("a", a), col("t", bad)}}, "t", "")
		if want := fmt.Sprintf(`decoreg: row 5, column "t": not a finite number: %v`, v); !errors.Is(err, ErrBadInput) || err.Error() != want {
			t.Errorf("EvaluateFrame with %v in the target: %v, want %q", v, err, want)
		}
	}
	// FitTemperature cancelled says so as the other methods do.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := slices.Clone(a)
	if _, err := m.FitTemperature(ctx, x, 20, y, CalibrateByNLL); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "decoreg: stopped: ") {
		t.Errorf("FitTemperature cancelled: %v", err)
	}
}

// WithMaxLevels out of range is the caller's setting, a ConfigError, not
// bad input (review).
func TestWithMaxLevelsRange(t *testing.T) {
	f := &data.Frame{Rows: 3, Columns: []data.Column{
		{Name: "a", Kind: data.Numeric, Field: -1, Num: []float64{1, 2, 3}, Missing: make([]bool, 3)},
		{Name: "t", Kind: data.Numeric, Field: -1, Num: []float64{1, 2, 4}, Missing: make([]bool, 3)},
	}}
	for _, n := range []int{-1, data.MaxMaxLevels + 1} {
		_, err := FitFrame(context.Background(), f, "t", Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1}, WithMaxLevels(n))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "MaxLevels" || errors.Is(err, ErrBadInput) {
			t.Errorf("WithMaxLevels(%d): %v", n, err)
		}
	}
}

// TestFitFrameHeaderRoom: a schema whose names and levels would not fit
// in a model file's header is refused before training, naming the column;
// a cell of 40 MB made a level that Save refused after the training (and
// after a whole Tune budget, helper-139). Each member of an ensemble
// repeats the features' names, and a numeric column's name is saved twice
// (helper-142: both passed the check and failed Save).
func TestFitFrameHeaderRoom(t *testing.T) {
	rows := 40
	frame := func(level int, numName string) *data.Frame {
		city := make([]string, rows)
		num, y := make([]float64, rows), make([]float64, rows)
		for i := range rows {
			city[i] = []string{"a", "b", "c"}[i%3]
			num[i], y[i] = float64(i), float64(i%7)
		}
		city[5] = strings.Repeat("Z", level)
		return &data.Frame{Rows: rows, Columns: []data.Column{
			{Name: numName, Kind: data.Numeric, Field: -1, Num: num, Missing: make([]bool, rows)},
			{Name: "city", Kind: data.Categorical, Field: -1, Str: city, Missing: make([]bool, rows)},
			{Name: "y", Kind: data.Numeric, Field: -1, Num: y, Missing: make([]bool, rows)},
		}}
	}
	cfg := Config{Head: HeadRiemann, EncWidth: 8, MaxEpochs: 2, Threads: 1}
	for _, c := range []struct {
		name    string
		f       *data.Frame
		members int
		want    string
	}{
		{"a 34 MiB level", frame(34<<20, "num"), 1, `the column "city" takes the most`},
		{"a 12 MiB level in 5 members", frame(12<<20, "num"), 5, `in a model file of 5 members`},
		{"a numeric column's 33 MiB name", frame(1, strings.Repeat("n", 33<<20)), 1, `"nnnnnnnnnnnn`},
	} {
		cfg.Ensemble = c.members
		trained := false
		_, err := FitFrame(context.Background(), c.f, "y", cfg, WithProgress(func(Progress) { trained = true }))
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want) || trained {
			t.Errorf("FitFrame with %s: %.400v (trained: %v)", c.name, err, trained)
		}
	}
	for _, c := range []struct {
		level, members int
	}{{8 << 20, 1}, {8 << 20, 3}} { // 16 and 32 MiB of names and levels in all: they fit, and save
		cfg.Ensemble = c.members
		m, err := FitFrame(context.Background(), frame(c.level, "num"), "y", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Save(filepath.Join(t.TempDir(), "m.model")); err != nil {
			t.Errorf("Save of a model of %d members whose levels fit: %v", c.members, err)
		}
	}
}

// TestFitFrameNaNInSkippedRow: a NaN feature in a row without a target,
// which training leaves out, is no error (helper-148: the check of every
// row refused it).
func TestFitFrameNaNInSkippedRow(t *testing.T) {
	x, y := make([]float64, 40), make([]float64, 40)
	miss := make([]bool, 40)
	for i := range x {
		x[i], y[i] = float64(i), float64(i%7)
	}
	x[5], miss[5] = math.NaN(), true // the target of row 5 is missing
	f := &data.Frame{Rows: 40, Columns: []data.Column{
		{Name: "x", Kind: data.Numeric, Field: -1, Num: x, Missing: make([]bool, 40)},
		{Name: "y", Kind: data.Numeric, Field: -1, Num: y, Missing: miss},
	}}
	m, err := FitFrame(context.Background(), f, "y", Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1})
	if err != nil || m.Info().SkippedRows != 1 {
		t.Fatalf("%v", err)
	}
}
