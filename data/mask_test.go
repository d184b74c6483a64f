package data

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestReadMask(t *testing.T) {
	p := filepath.Join("testdata", "tiny_mask.csv")
	m, err := ReadMask(p)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows() != 4 || m.Splits() != 2 || m.Path != p {
		t.Fatalf("rows %d splits %d path %q", m.Rows(), m.Splits(), m.Path)
	}
	want := [][]bool{{true, false, false, true}, {false, true, true, false}}
	for k, w := range want {
		got, err := m.Test(k)
		if err != nil || !slices.Equal(got, w) {
			t.Errorf("Test(%d) = %v, %v; want %v", k, got, err, w)
		}
	}
	for _, k := range []int{-1, 2} {
		_, err := m.Test(k)
		if !errors.Is(err, ErrSplitRange) || !strings.Contains(err.Error(), "want 0 to 1") || !strings.Contains(err.Error(), p) {
			t.Errorf("Test(%d): %v", k, err)
		}
	}

	d, err := ReadCSV(filepath.Join("testdata", "tiny.csv"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRows(m, d); err != nil {
		t.Error(err)
	}
	short := Subset(d, []int{0, 1, 2})
	err = CheckRows(m, short)
	if !errors.Is(err, ErrRowCount) || !strings.Contains(err.Error(), "mask "+p+" has 4 rows but data testdata/tiny.csv has 3") {
		t.Errorf("CheckRows: %v", err)
	}
	if err := CheckRows(nil, nil); err == nil {
		t.Error("CheckRows(nil, nil): no error")
	}

	test, _ := m.Test(0)
	tr, te := TrainTest(d, test)
	checkDataset(t, tr, d.Names, []float64{4, 5, -7.5, 0.8}, []float64{6, 9}, "y")
	checkDataset(t, te, d.Names, []float64{1, 2, 0.25, 1000}, []float64{3, -2}, "y")
}

func TestReadMaskErrors(t *testing.T) {
	tests := []struct {
		name, content string
		sentinel      error
		line, col     int
	}{
		{"empty", "", ErrEmpty, 0, 0},
		{"header only", "split0,split1\n", ErrNoRows, 0, 0},
		{"bad header", "split0,split2\n0,1\n", ErrMaskHeader, 1, 2},
		{"bad header name", "x0\n0\n", ErrMaskHeader, 1, 1},
		{"value 2", "split0,split1\n0,1\n1,2\n", ErrMaskValue, 3, 2},
		{"value 0.5", "split0\n0.5\n", ErrMaskValue, 2, 1},
		{"empty value", "split0,split1\n,1\n", ErrMaskValue, 2, 1},
		{"ragged", "split0,split1\n0,1\n1\n", ErrFieldCount, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "m.csv", tc.content)
			_, err := ReadMask(p)
			var pe *ParseError
			if !errors.Is(err, tc.sentinel) || !errors.As(err, &pe) {
				t.Fatalf("%v: want a *ParseError wrapping %v", err, tc.sentinel)
			}
			if pe.Line != tc.line || pe.Column != tc.col || pe.Path != p {
				t.Errorf("%v: line %d column %d, want %d %d", err, pe.Line, pe.Column, tc.line, tc.col)
			}
		})
	}
	if _, err := ReadMask(filepath.Join(t.TempDir(), "none.csv")); err == nil {
		t.Error("missing mask file: no error")
	}
}

func TestSubset(t *testing.T) {
	d := &Dataset{Names: []string{"a", "b"}, X: []float64{1, 2, 3, 4, 5, 6}, Y: []float64{10, 20, 30}, Rows: 3, Cols: 2}
	s := Subset(d, []int{2, 0, 2})
	checkDataset(t, s, []string{"a", "b"}, []float64{5, 6, 1, 2, 5, 6}, []float64{30, 10, 30}, "")
	s.X[0] = -1
	if d.X[4] != 5 {
		t.Error("Subset shares X with its source")
	}
	d.Y = nil
	if s := Subset(d, []int{1}); s.Y != nil || !slices.Equal(s.X, []float64{3, 4}) {
		t.Errorf("no target: %+v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("out of range row did not panic")
		}
	}()
	Subset(d, []int{3})
}

// TestUCI reads every UCI data set and mask present in the shared data
// directory and checks them against the directory's README: row and feature
// counts, and that each row is a test row of exactly one split.
func TestUCI(t *testing.T) {
	sets := []struct {
		name       string
		rows, cols int
		big        bool
	}{
		{"airfoil", 1503, 5, false}, {"autompg", 392, 7, false}, {"autos", 159, 25, false},
		{"bike", 17379, 17, true}, {"breastcancer", 194, 33, false}, {"challenger", 23, 4, false},
		{"concrete", 1030, 8, false}, {"elevators", 16599, 18, true}, {"energy", 768, 8, false},
		{"fertility", 100, 9, false}, {"gas", 2565, 128, false}, {"housing", 506, 13, false},
		{"keggdirected", 48827, 20, true}, {"kin40k", 40000, 8, true}, {"parkinsons", 5875, 20, false},
		{"pol", 15000, 26, true}, {"protein", 45730, 9, true}, {"pumadyn32nm", 8192, 32, false},
		{"sml", 4137, 26, false}, {"solar", 1066, 10, false}, {"stock", 536, 11, false},
		{"tamielectric", 45781, 3, true}, {"wine", 1599, 11, false}, {"yacht", 308, 6, false},
	}
	dir := uciDir()
	if dir == "" {
		t.Skip("no UCI data directory")
	}
	for _, s := range sets {
		if s.big && testing.Short() {
			continue
		}
		d, err := ReadCSV(filepath.Join(dir, s.name, "data.csv.gz"), ReadOptions{})
		if err != nil {
			t.Error(err)
			continue
		}
		m, err := ReadMask(filepath.Join(dir, s.name, "test_mask.csv.gz"))
		if err != nil {
			t.Error(err)
			continue
		}
		if d.Rows != s.rows || d.Cols != s.cols || d.TargetName != "y" || m.Splits() != 10 {
			t.Errorf("%s: %d x %d target %q, %d splits; want %d x %d", s.name, d.Rows, d.Cols, d.TargetName, m.Splits(), s.rows, s.cols)
		}
		if err := CheckRows(m, d); err != nil {
			t.Error(err)
			continue
		}
		count := make([]int, d.Rows)
		for k := 0; k < m.Splits(); k++ {
			test, _ := m.Test(k)
			for i, b := range test {
				if b {
					count[i]++
				}
			}
		}
		for i, c := range count {
			if c != 1 {
				t.Errorf("%s: row %d is a test row of %d splits", s.name, i, c)
				break
			}
		}
	}
}

// uciDir returns the shared UCI data directory, or "" if there is none.
func uciDir() string {
	for _, dir := range []string{"../shared/data/uci", "../../shared/data/uci", "/work/shared/data/uci"} {
		if fi, err := os.Stat(filepath.Join(dir, "yacht", "test_mask.csv.gz")); err == nil && fi.Mode().IsRegular() {
			return dir
		}
	}
	return ""
}

// NewMask's sizes: rows × splits overflowing int to len(test) was
// accepted (1<<32 × 1<<32 wrapped to 0), and then Test panicked.
func TestNewMaskSizes(t *testing.T) {
	for _, c := range []struct {
		rows, splits int
		test         []bool
	}{{huge(32), huge(32), nil}, {0, 0, nil}, {2, 1, []bool{true}}, {-1, -1, []bool{true}}} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("NewMask(%d, %d, %d values) accepted", c.rows, c.splits, len(c.test))
				}
			}()
			NewMask(c.rows, c.splits, c.test)
		}()
	}
	if m := NewMask(2, 1, []bool{true, false}); m.Rows() != 2 || m.Splits() != 1 {
		t.Errorf("2 x 1: %d x %d", m.Rows(), m.Splits())
	}
}

// A nil mask's methods answer (no rows, no splits, an error for Test), as
// CheckRows(nil, ...) does, rather than panic (helper-122).
func TestNilMask(t *testing.T) {
	var m *Mask
	if m.Rows() != 0 || m.Splits() != 0 {
		t.Errorf("nil mask: %d rows, %d splits", m.Rows(), m.Splits())
	}
	if _, err := m.Test(0); !errors.Is(err, ErrSplitRange) {
		t.Errorf("nil mask: Test(0) error %v", err)
	}
}

// huge is 1<<bits, or math.MaxInt where int is too narrow for it (32-bit
// systems): a count far beyond any limit.
func huge(bits uint) int {
	if bits >= strconv.IntSize-1 {
		return math.MaxInt
	}
	return 1 << bits
}
