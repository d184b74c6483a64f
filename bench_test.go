package decoreg

import (
	"context"
	"math"
	"sync"
	"testing"

	"decoreg/dist"
)

// benchPrepareModel is the decoder (defaults of train) fitted for 8
// epochs on 3,000 rows of y = sin(3x) plus noise that grows with |x|,
// once per test binary.
var benchPrepareModel = sync.OnceValues(func() (*Model, error) {
	const n = 3000
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = -1 + 2*float64(i)/n
		y[i] = math.Sin(3*x[i]) + 0.3*x[i]*float64(i%7-3)/3
	}
	return FitFlat(context.Background(), x, n, 1, y, Config{MaxEpochs: 8, Seed: 1, Threads: 1})
})

// BenchmarkPrepare times what a prediction of the mean and 9 quantiles
// costs a row (Model.Dists and dist.Prepare, one thread) when the row is
// prepared alone (a request of one row served without batching) and
// when 8 rows share their decoder steps (a batch; PredictFlat's groups).
// It reports µs a row: the difference is all that batching can save of
// a decoder row's prediction.
func BenchmarkPrepare(b *testing.B) {
	m, err := benchPrepareModel()
	if err != nil {
		b.Fatal(err)
	}
	levels := []float64{.1, .2, .3, .4, .5, .6, .7, .8, .9}
	for _, c := range []struct {
		name string
		rows int
	}{{"alone", 1}, {"joint8", 8}} {
		b.Run(c.name, func(b *testing.B) {
			k := 0
			xs := make([]float64, c.rows)
			reqs := make([]dist.PrepareRequest, c.rows)
			for b.Loop() {
				for i := range xs {
					xs[i] = -1 + 2*float64((k*37+i*101)%1000)/1000
				}
				k++
				ds, err := m.Dists(context.Background(), xs, c.rows, dist.TokenOptions{Threads: 1})
				if err != nil {
					b.Fatal(err)
				}
				for i := range reqs {
					reqs[i] = dist.PrepareRequest{Dist: ds[i], Mean: true, Levels: levels}
				}
				dist.Prepare(reqs)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*c.rows), "µs/row")
		})
	}
}
