package serve

import (
	"errors"
	"math"
	"testing"

	"decoreg"
	"decoreg/data"
)

// FuzzParseRequest: the request decoder never panics; what it accepts is
// consistent (rows within the limit, one finite value per feature, levels
// in [0, 1], one finite y per row where asked), and what it refuses is a
// *badRequest (a 400, never a 500).
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"rows":[{"a":1,"b":2}]}`,
		`{"x":[[1,2],[3,4]],"outputs":["mean","quantiles"],"quantiles":[0.1,0.9]}`,
		`{"x":[[1,2]],"outputs":["logpdf","cdf"],"y":[1.5]}`,
		`{"x":[[1,2]],"outputs":["samples"],"samples":{"n":3,"temperature":0.5,"top_k":2,"top_p":0.9,"seed":4}}`,
		`{"x":[[1,2]],"outputs":["density"],"density":{"n":5,"lo":-1,"hi":1}}`,
		`{"rows":[{"a":1e308,"b":-0}],"outputs":["mode","median"]}`,
		`{"rows":[{"a":null}]}`, `{"x":[[1,"2"]]}`, `[]`, `{}`, `null`, ``,
	} {
		f.Add([]byte(s), false)
	}
	lim := Limits{MaxRows: 50, MaxSamples: 500, MaxQuantiles: 20, MaxDensity: 500, MaxValues: 3000}
	f.Fuzz(func(t *testing.T, body []byte, pointwise bool) {
		ms := modelSpec{features: []string{"a", "b"}, head: decoreg.HeadDecoder}
		if pointwise {
			ms.head = decoreg.HeadPointwise
		}
		q, err := parseRequest(body, ms, lim)
		if err != nil {
			var br *badRequest
			if !errors.As(err, &br) || br.msg == "" {
				t.Fatalf("error %v (%T) is not a bad request", err, err)
			}
			return
		}
		if q.rows < 1 || q.rows > lim.MaxRows || len(q.x) != q.rows*2 {
			t.Fatalf("%d rows, %d values", q.rows, len(q.x))
		}
		for _, v := range q.x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite feature %v accepted", v)
			}
		}
		if len(q.want) == 0 {
			t.Fatal("no outputs")
		}
		for _, l := range q.levels {
			if !(l >= 0 && l <= 1) {
				t.Fatalf("level %v accepted", l)
			}
		}
		if (q.want[outLogPDF] || q.want[outCDF]) && len(q.y) != q.rows {
			t.Fatalf("%d y for %d rows", len(q.y), q.rows)
		}
		if q.want[outSamples] && (q.n < 1 || q.n*q.rows > lim.MaxSamples) {
			t.Fatalf("%d samples for %d rows", q.n, q.rows)
		}
		if q.want[outDensity] && (q.dens.N < 2 || q.dens.N*q.rows > lim.MaxDensity || ms.head == decoreg.HeadPointwise) {
			t.Fatalf("density %+v for %d rows", q.dens, q.rows)
		}
	})
}

// FuzzParseRequestSchema: the same for a model with a schema (a numeric
// column with a missing indicator and a categorical one): rows of strings,
// numbers and nulls never panic, and what is accepted is encoded to the
// schema's width with finite values.
func FuzzParseRequestSchema(f *testing.F) {
	for _, s := range []string{
		`{"rows":[{"a":1,"c":"x"}]}`,
		`{"rows":[{"a":null,"c":null},{"a":2.5,"c":"z"}]}`,
		`{"x":[[1,"y"],[null,""]],"outputs":["mean"]}`,
		`{"x":[[1,7]]}`, `{"rows":[{"a":"1","c":"x"}]}`, `{"rows":[{"a":1,"c":"NA"}]}`,
		`{"rows":[{"a":1,"c":"\u00ff\ud800"}]}`, `{"rows":[{"a":1}]}`, `{"x":[[1,{}]]}`,
	} {
		f.Add([]byte(s))
	}
	sc := &data.Schema{Columns: []data.ColumnSchema{
		{Name: "a", Kind: data.Numeric, Median: 2, Missing: true},
		{Name: "c", Kind: data.Categorical, Levels: []string{"x", "y"}},
	}}
	lim := Limits{MaxRows: 50, MaxSamples: 500, MaxQuantiles: 20, MaxDensity: 500, MaxValues: 3000}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms := modelSpec{features: sc.Names(), head: decoreg.HeadMDN, schema: sc}
		q, err := parseRequest(body, ms, lim)
		if err != nil {
			var br *badRequest
			if !errors.As(err, &br) || br.msg == "" {
				t.Fatalf("error %v (%T) is not a bad request", err, err)
			}
			return
		}
		if q.rows < 1 || q.rows > lim.MaxRows || q.enc == nil || q.enc.Rows() != q.rows || q.enc.Cols() != sc.Width() {
			t.Fatalf("%d rows, an encoder %v", q.rows, q.enc)
		}
		x := make([]float64, q.rows*sc.Width())
		if err := q.fill(0, q.rows, sc.Width(), x); err != nil {
			t.Fatal(err)
		}
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite feature %v accepted", v)
			}
		}
	})
}
