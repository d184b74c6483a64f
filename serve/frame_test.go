package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/heapwatch"
)

// TestServeSchemaModel: a model trained on a table with text columns and
// missing cells lists its original columns with their types and levels,
// takes rows whose values are strings (categorical columns), numbers and
// null (missing), answers as the library does, warns about unseen levels,
// and refuses a string for a numeric column and an absent column.
func TestServeSchemaModel(t *testing.T) {
	m := mixedModel(t, data.FrameOptions{})
	_, ts := newTestServer(t, m, Options{})

	mi, _ := oneModelInfo(t, ts.URL)
	var names, types []string
	for _, ft := range mi.Features {
		names, types = append(names, ft.Name), append(types, ft.Type)
	}
	if strings.Join(names, ",") != "area,rooms,city,heating,garden,year" || strings.Join(types, ",") != "number,number,category,category,category,number" ||
		strings.Join(mi.Features[2].Levels, ",") != "Lille,Lyon,Nantes,Paris,Toulouse" || !mi.Features[0].Missing || mi.Features[1].Missing ||
		!slices.Contains(mi.EncodedFeatures, "garden=yes") {
		t.Errorf("model info %+v", mi)
	}

	rows := `[{"area":80,"rooms":3,"city":"Paris","heating":"gas","garden":"yes","year":1990},` +
		`{"area":null,"rooms":null,"city":null,"heating":"","garden":"no","year":null},` +
		`{"area":55.5,"rooms":2,"city":"Marseille","heating":"NA","garden":"no","year":2001}]`
	code, body, _ := post(t, ts.URL+"/v1/models/m/predict", `{"rows":`+rows+`,"outputs":["mean"]}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	r := decode(t, body)
	var ans struct{ Warnings []string }
	json.Unmarshal(body, &ans)
	if len(ans.Warnings) != 2 || !strings.Contains(ans.Warnings[0], `"rooms"`) || !strings.Contains(ans.Warnings[1], `"Marseille"`) {
		t.Errorf("warnings %q: want the missing rooms and the unseen city", ans.Warnings)
	}
	// The same rows as a frame, through the library.
	col := func(name string, kind data.Kind, str []string, num []float64) data.Column {
		c := data.Column{Name: name, Kind: kind, Field: -1, Str: str, Num: num, Missing: make([]bool, 3)}
		for i, s := range str {
			c.Missing[i] = s == ""
		}
		return c
	}
	g := &data.Frame{Rows: 3, Columns: []data.Column{
		col("area", data.Numeric, []string{"80", "", "55.5"}, []float64{80, 0, 55.5}),
		col("rooms", data.Numeric, []string{"3", "", "2"}, []float64{3, 0, 2}),
		col("city", data.Categorical, []string{"Paris", "", "Marseille"}, nil),
		col("heating", data.Categorical, []string{"gas", "", ""}, nil),
		col("garden", data.Categorical, []string{"yes", "no", "no"}, nil),
		col("year", data.Numeric, []string{"1990", "", "2001"}, []float64{1990, 0, 2001}),
	}}
	want, err := m.PredictFrame(context.Background(), g, decoreg.PredictOptions{Outputs: decoreg.OutMean})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range r.Predictions {
		if p.Mean == nil || !eq(*p.Mean, want.Mean[i]) {
			t.Errorf("row %d: served mean %v, library %v", i, p.Mean, want.Mean[i])
		}
	}
	// The same as arrays in column order.
	code, body2, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[80,3,"Paris","gas","yes",1990],[null,null,null,"","no",null],[55.5,2,"Marseille","NA","no",2001]],"outputs":["mean"]}`)
	if code != 200 || string(body2) != string(body) {
		t.Errorf("x arrays: %d %s, want %s", code, body2, body)
	}

	for _, c := range []struct{ body, want string }{
		{`{"rows":[{"area":"big","rooms":3,"city":"Paris","heating":"gas","garden":"yes","year":1990}]}`, `feature "area"`},
		{`{"rows":[{"rooms":3,"city":"Paris","heating":"gas","garden":"yes","year":1990}]}`, `feature "area" is missing`},
		{`{"rows":[{"area":1,"rooms":3,"city":true,"heating":"gas","garden":"yes","year":1990}]}`, `feature "city"`},
		{`{"rows":[{"area":1,"rooms":3,"city":"Paris","heating":"gas","garden":"yes","year":1990,"price":3}]}`, `unknown feature "price"`},
		{`{"x":[[80,3,"Paris","gas","yes"]]}`, `5 values`},
	} {
		code, b, _ := post(t, ts.URL+"/v1/models/m/predict", c.body)
		var e struct{ Error string }
		json.Unmarshal(b, &e)
		if code != 400 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %s, want 400 naming %s", c.body, code, b, c.want)
		}
	}
}

// TestServeNumericNAMarker: a number equal to a missing-value marker that is
// a number reads as missing, as it does in a CSV file: in a numeric column
// and, as a JSON number or a string, in a categorical one.
func TestServeNumericNAMarker(t *testing.T) {
	m := mixedModel(t, data.FrameOptions{NA: []string{"NA", "?", "-999"}})
	_, ts := newTestServer(t, m, Options{})
	ask := func(area, heating string) string {
		t.Helper()
		code, body, _ := post(t, ts.URL+"/v1/models/m/predict", `{"rows":[{"area":`+area+`,"rooms":3,"city":"Paris","heating":`+heating+`,"garden":"yes","year":1990}],"outputs":["mean"]}`)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		var r struct{ Predictions []struct{ Mean float64 } }
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatFloat(r.Predictions[0].Mean, 'g', -1, 64)
	}
	null := ask("null", "null")
	for _, c := range [][2]string{{"-999.0", "null"}, {"-9.99e2", "-999"}, {"null", `"-999.0"`}, {"null", "-999"}} {
		if got := ask(c[0], c[1]); got != null {
			t.Errorf("area %s, heating %s: mean %s, want %s as for null", c[0], c[1], got, null)
		}
	}
	if got := ask("-998", "null"); got == null {
		t.Errorf("area -998 reads as missing")
	}
}

// mixedModel is a small MDN trained on ../testdata/mixed.csv (text columns,
// missing cells) read with opts, its target price.
func mixedModel(t *testing.T, opts data.FrameOptions) *decoreg.Model {
	t.Helper()
	f, err := data.ReadFrame("../testdata/mixed.csv", opts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := decoreg.FitFrame(context.Background(), f, "price", decoreg.Config{Head: decoreg.HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWideRequestChunked: a request's rows are encoded for the network a
// chunk at a time, not as a table of a float64 per level a row (10,000
// rows of a column of 1,500 levels are 120 MB held whole, and were), and
// answered as the library answers them.
func TestWideRequestChunked(t *testing.T) {
	const levels, trainRows, rows = 1500, 3000, 10000
	frame := func(n int, seed uint64) *data.Frame {
		r := rand.New(rand.NewPCG(seed, 3))
		c := data.Column{Name: "c", Kind: data.Categorical, Field: -1, Str: make([]string, n), Missing: make([]bool, n)}
		x := data.Column{Name: "x", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)}
		y := data.Column{Name: "y", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)}
		for i := range n {
			l := i % levels
			if seed != 1 {
				l = r.IntN(levels)
			}
			c.Str[i] = "L" + strconv.Itoa(l)
			x.Num[i] = r.Float64()
			y.Num[i] = float64(l)/levels + 0.3*x.Num[i] + 0.05*r.NormFloat64()
		}
		return &data.Frame{Rows: n, Columns: []data.Column{c, x, y}}
	}
	m, err := decoreg.FitFrame(context.Background(), frame(trainRows, 1), "y", decoreg.Config{Head: decoreg.HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 1, Threads: 1}, decoreg.WithMaxLevels(2000))
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, m, Options{})
	f := frame(rows, 2)
	var b strings.Builder
	b.WriteString(`{"outputs":["mean"],"x":[`)
	for i := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `[%q,%s]`, f.Columns[0].Str[i], strconv.FormatFloat(f.Columns[1].Num[i], 'g', -1, 64))
	}
	b.WriteString("]}")
	var code int
	var body []byte
	peak := heapwatch.PeakLive(func() { code, body, _ = post(t, ts.URL+"/v1/models/m/predict", b.String()) })
	t.Logf("%d rows of %d levels: %.1f MB live at the peak", rows, levels, float64(peak)/(1<<20))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	if table := uint64(rows * levels * 8); peak > table/2 {
		t.Errorf("%.0f MB live at the peak; the encoded table is %d MB: want a chunk of it", float64(peak)/(1<<20), table>>20)
	}
	var resp struct{ Predictions []struct{ Mean float64 } }
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	want, err := m.PredictFrame(context.Background(), f, decoreg.PredictOptions{Outputs: decoreg.OutMean})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Predictions) != rows {
		t.Fatalf("%d predictions", len(resp.Predictions))
	}
	for i, p := range resp.Predictions {
		if p.Mean != want.Mean[i] {
			t.Fatalf("row %d: mean %v, the library's %v", i, p.Mean, want.Mean[i])
		}
	}
	// A row the network overflows on, past the first chunk, is named by
	// its index in the request.
	b.Reset()
	b.WriteString(`{"outputs":["mean"],"x":[`)
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",")
		}
		x := "0.5"
		if i == 1500 {
			x = "1e300"
		}
		fmt.Fprintf(&b, `[%q,%s]`, f.Columns[0].Str[i], x)
	}
	b.WriteString("]}")
	if code, body, _ := post(t, ts.URL+"/v1/models/m/predict", b.String()); code != http.StatusBadRequest || !strings.Contains(string(body), `x[1500]: feature \"x\"`) {
		t.Errorf("a row the network overflows on: %d %s", code, body)
	}
}

// TestServeNAMarkerNotation: a model whose marker was a number with a
// decimal comma ("-999,5", trained on a file of decimal commas) reads the
// JSON number -999.5 as missing, as it read the training file's cells;
// a string in a categorical column is text as that file wrote it: the
// marker "1.000" (1000 there) marks the string "1.000" (helper-153: it was
// an unseen level), and the JSON number 1 is no marker.
func TestServeNAMarkerNotation(t *testing.T) {
	f, err := data.ReadFrame("../testdata/mixed.csv", data.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.NA, f.Dialect = []string{"NA", "-999,5", "1.000"}, data.Dialect{Sep: ';', DecimalComma: true}
	m, err := decoreg.FitFrame(context.Background(), f, "price", decoreg.Config{Head: decoreg.HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, m, Options{})
	mean := func(area, heating string) string {
		t.Helper()
		code, body, _ := post(t, ts.URL+"/v1/models/m/predict", `{"rows":[{"area":`+area+`,"rooms":3,"city":"Paris","heating":`+heating+`,"garden":"yes","year":1990}],"outputs":["mean"]}`)
		if code != 200 {
			t.Fatalf("%d %s", code, body)
		}
		return string(body)
	}
	if a, b := mean("-999.5", `"gas"`), mean("null", `"gas"`); a != b {
		t.Errorf("area -999.5: %s, want as null: %s", a, b)
	}
	if a, b := mean("80", `"1.000"`), mean("80", "null"); a != b || strings.Contains(a, "not seen") {
		t.Errorf(`heating "1.000": %s, want as null: %s`, a, b)
	}
	if a, b := mean("1", `"gas"`), mean("null", `"gas"`); a == b {
		t.Errorf("area 1 reads as missing: %s", a)
	}
}
