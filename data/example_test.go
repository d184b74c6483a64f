package data_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"decoreg/data"
)

func ExampleReadCSV() {
	d, err := data.ReadCSV("testdata/tiny.csv", data.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := data.ReadMask("testdata/tiny_mask.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := data.CheckRows(m, d); err != nil {
		fmt.Println(err)
		return
	}
	test, _ := m.Test(1)
	train, tst := data.TrainTest(d, test)
	fmt.Println(d.Names, d.TargetName, d.Rows, "rows:", train.Rows, "train,", tst.Rows, "test")
	// Output: [x0 x1] y 4 rows: 2 train, 2 test
}

func ExampleParseError() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "bad.csv")
	os.WriteFile(p, []byte("a,b\n1,2\n3,oops\n"), 0o644)
	_, err := data.ReadCSV(p, data.ReadOptions{})
	var pe *data.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Line, pe.Column, errors.Is(err, data.ErrNotNumber))
		fmt.Println(pe.Err)
	}
	// Output:
	// 3 2 true
	// not a number: "oops" in column "b"
}
