package decoreg_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"decoreg"
	"decoreg/data"
)

// Fit a decoder head on synthetic data, then read the predictive
// distribution of one input: its quantiles, CDF and density.
func ExampleFit() {
	r := rand.New(rand.NewPCG(1, 2))
	X := make([][]float64, 2000)
	y := make([]float64, len(X))
	for i := range X {
		x := 4*r.Float64() - 2
		X[i] = []float64{x}
		y[i] = 3*x + r.NormFloat64() // y | x ~ N(3x, 1)
	}
	m, err := decoreg.Fit(context.Background(), X, y, decoreg.Config{
		Head:      decoreg.HeadDecoder,
		Vocab:     "normalized:base=8,length=4",
		EncWidth:  32,
		MaxEpochs: 20,
		LR:        3e-3,
		Seed:      1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := m.Dist([]float64{1}) // p(y | x=1), truly N(3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	q10, q50, q90 := d.Quantile(0.1), d.Median(), d.Quantile(0.9)
	fmt.Println("quantiles ordered:", q10 < q50 && q50 < q90)
	fmt.Println("median near 3:", math.Abs(q50-3) < 0.5)
	fmt.Println("80% interval near 2.56 wide:", math.Abs((q90-q10)-2.56) < 0.8)
	fmt.Printf("CDF(median) = %.2f\n", d.CDF(q50))
	// Output:
	// quantiles ordered: true
	// median near 3: true
	// 80% interval near 2.56 wide: true
	// CDF(median) = 0.50
}

// Predict summaries for many rows at once.
func ExampleModel_Predict() {
	r := rand.New(rand.NewPCG(3, 4))
	X := make([][]float64, 1000)
	y := make([]float64, len(X))
	for i := range X {
		X[i] = []float64{r.Float64()}
		y[i] = X[i][0] + 0.1*r.NormFloat64()
	}
	m, err := decoreg.Fit(context.Background(), X, y, decoreg.Config{Head: decoreg.HeadMDN, EncWidth: 32, MaxEpochs: 30, LR: 3e-3})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m.Predict(context.Background(), [][]float64{{0.2}, {0.8}}, decoreg.PredictOptions{
		Outputs: decoreg.OutMean | decoreg.OutQuantiles,
		Levels:  []float64{0.05, 0.95},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("means increase:", p.Mean[0] < p.Mean[1])
	fmt.Println("intervals cover the means:", p.Quantiles[0][0] < p.Mean[0] && p.Mean[0] < p.Quantiles[1][0])
	// Output:
	// means increase: true
	// intervals cover the means: true
}

// Report training progress through WithProgress, and read which row and
// column of the data an error is about through DataError.
func ExampleWithProgress() {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 200) // 100 rows of 2 features, row-major
	y := make([]float64, 100)
	for i := range y {
		x[2*i], x[2*i+1] = r.Float64(), r.Float64()
		y[i] = x[2*i] - x[2*i+1]
	}
	cfg := decoreg.Config{Head: decoreg.HeadRiemann, EncWidth: 16, MaxEpochs: 3, Seed: 1}
	epochs := 0
	_, err := decoreg.FitFlat(context.Background(), x, 100, 2, y, cfg,
		decoreg.WithProgress(func(p decoreg.Progress) { epochs = p.Epoch }))
	fmt.Println("epochs reported:", epochs, err)

	x[2*7+1] = math.NaN()
	_, err = decoreg.FitFlat(context.Background(), x, 100, 2, y, cfg)
	var de *decoreg.DataError
	if errors.As(err, &de) {
		fmt.Printf("row %d, column %d: %v (bad input: %v)\n", de.Row, de.Column, de.Err, errors.Is(err, decoreg.ErrBadInput))
	}
	// Output:
	// epochs reported: 3 <nil>
	// row 7, column 1: the feature is NaN (bad input: true)
}

// Fit a table with a text column, then predict a table of new rows a
// chunk at a time (PredictRows of the model's Encoder): a text column's
// levels are one-hot features, and a table of many levels is not held
// encoded whole.
func ExampleModel_PredictRows() {
	r := rand.New(rand.NewPCG(7, 8))
	frame := func(n int) *data.Frame {
		city := data.Column{Name: "city", Kind: data.Categorical, Field: -1, Str: make([]string, n), Missing: make([]bool, n)}
		area := data.Column{Name: "area", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)}
		price := data.Column{Name: "price", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)}
		for i := range n {
			k := r.IntN(3)
			city.Str[i] = []string{"Lyon", "Paris", "Nice"}[k]
			area.Num[i] = 30 + 100*r.Float64()
			price.Num[i] = area.Num[i]*float64(2+k) + 10*r.NormFloat64()
		}
		return &data.Frame{Rows: n, Columns: []data.Column{city, area, price}}
	}
	m, err := decoreg.FitFrame(context.Background(), frame(1000), "price", decoreg.Config{Head: decoreg.HeadMDN, EncWidth: 32, MaxEpochs: 20, LR: 3e-3, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, err := m.Encoder(frame(5000)) // the price column is not read
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := m.PredictRows(context.Background(), rows, decoreg.PredictOptions{Outputs: decoreg.OutMedian})
	if err != nil {
		fmt.Println(err)
		return
	}
	features, _ := m.Names()
	fmt.Println(len(p.Median), "medians;", rows.Cols(), "features a row:", features)
	// Output:
	// 5000 medians; 4 features a row: [city=Lyon city=Nice city=Paris area]
}
