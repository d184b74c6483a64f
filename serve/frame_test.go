package serve

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/data"
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
