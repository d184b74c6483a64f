package data

import "fmt"

// Subset returns a new data set holding the given rows of d, in the order
// given (rows may repeat). Names are shared with d; X, Y and Lines are
// copied. It panics if a row is out of range.
func Subset(d *Dataset, rows []int) *Dataset {
	s := &Dataset{Names: d.Names, Rows: len(rows), Cols: d.Cols, Path: d.Path, TargetName: d.TargetName}
	s.X = make([]float64, 0, len(rows)*d.Cols)
	if d.Y != nil {
		s.Y = make([]float64, 0, len(rows))
	}
	lines := len(d.Lines) == d.Rows && d.Lines != nil
	if lines {
		s.Lines = make([]int, 0, len(rows))
	}
	for _, r := range rows {
		if r < 0 || r >= d.Rows {
			panic(fmt.Sprintf("data: Subset: row %d out of range [0, %d)", r, d.Rows))
		}
		s.X = append(s.X, d.Row(r)...)
		if d.Y != nil {
			s.Y = append(s.Y, d.Y[r])
		}
		if lines {
			s.Lines = append(s.Lines, d.Lines[r])
		}
	}
	return s
}

// TrainTest splits d by a test mask (as returned by Mask.Test): rows with
// test[i] true go to test, the others to train, each in their original
// order. It panics if len(test) != d.Rows; call CheckRows first to turn that
// into an error.
func TrainTest(d *Dataset, test []bool) (train, tst *Dataset) {
	if len(test) != d.Rows {
		panic(fmt.Sprintf("data: TrainTest: mask of %d rows for %d data rows", len(test), d.Rows))
	}
	var tr, te []int
	for i, t := range test {
		if t {
			te = append(te, i)
		} else {
			tr = append(tr, i)
		}
	}
	return Subset(d, tr), Subset(d, te)
}
