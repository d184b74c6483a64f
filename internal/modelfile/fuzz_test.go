package modelfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FuzzDecode reads any bytes as a model file. Decode must not panic; it
// either fails with one of the package's errors or returns a header and
// parameters that Encode writes back to exactly the bytes read. ReadFile's
// errors name the file.
func FuzzDecode(f *testing.F) {
	h, p := sample()
	var good bytes.Buffer
	if err := Encode(&good, h, p); err != nil {
		f.Fatal(err)
	}
	var empty bytes.Buffer
	if err := Encode(&empty, nil, nil); err != nil {
		f.Fatal(err)
	}
	newer := bytes.Clone(good.Bytes())
	binary.LittleEndian.PutUint32(newer[8:], Version+1)
	long := bytes.Clone(good.Bytes()[:16])
	binary.LittleEndian.PutUint32(long[12:], maxHeader)
	for _, b := range [][]byte{good.Bytes(), empty.Bytes(), newer, long, []byte(magic), nil,
		append(bytes.Clone(good.Bytes()), 0)} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		header, params, err := Decode(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrNotModel) && !errors.Is(err, ErrTruncated) &&
				!errors.Is(err, ErrChecksum) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrNoRoom) {
				t.Fatalf("Decode: unexpected error %v", err)
			}
		} else {
			var again bytes.Buffer
			if err := Encode(&again, header, params); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), b) {
				t.Fatalf("Decode accepted %d bytes that encode back to %d different ones", len(b), again.Len())
			}
		}
		path := filepath.Join(t.TempDir(), "m.drg")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, ferr := ReadFile(path)
		if (ferr == nil) != (err == nil) {
			t.Fatalf("ReadFile: %v, Decode: %v", ferr, err)
		}
		if ferr != nil && !strings.Contains(ferr.Error(), path) {
			t.Fatalf("ReadFile: error does not name the file: %v", ferr)
		}
	})
}

// TestDecodeTrailingData: bytes after the checksum (found by FuzzDecode)
// were ignored, so a file with anything appended loaded as if whole.
func TestDecodeTrailingData(t *testing.T) {
	h, p := sample()
	var buf bytes.Buffer
	if err := Encode(&buf, h, p); err != nil {
		t.Fatal(err)
	}
	for _, tail := range []string{"\x00", "x", strings.Repeat("DECOREG\x00", 3)} {
		b := append(bytes.Clone(buf.Bytes()), tail...)
		if _, _, err := Decode(bytes.NewReader(b)); !errors.Is(err, ErrChecksum) {
			t.Errorf("%d trailing bytes: err %v, want ErrChecksum", len(tail), err)
		}
	}
}

// TestDecodeHeaderLengthAllocation: a 16-byte file claiming a header of
// maxHeader bytes made Decode allocate maxHeader (64 MiB) before finding
// that the file is truncated.
func TestDecodeHeaderLengthAllocation(t *testing.T) {
	b := []byte(magic + "\x01\x00\x00\x00" + "\x00\x00\x00\x04") // version 1, header 64 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := Decode(bytes.NewReader(b)); !errors.Is(err, ErrTruncated) {
		t.Errorf("err %v, want ErrTruncated", err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Decode of a %d-byte file allocated %d bytes", len(b), n)
	}
}

// TestReadFileNotModelReadsLittle: ReadFile read the whole file into memory
// before looking at its magic, so --model pointed at a big data file
// allocated its size.
func TestReadFileNotModelReadsLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(path, []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 256<<20); err != nil { // sparse: no disk used
		t.Skip(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadFile(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrNotModel) || !strings.Contains(err.Error(), path) {
		t.Errorf("err %v, want ErrNotModel naming %s", err, path)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("ReadFile of a non-model file allocated %d bytes", n)
	}
}

// TestReadFileSizeChecked: a sparse 1 GiB file declaring 2^28 parameters
// was read through and its parameters allocated (3 GB, by append's growth)
// before the checksum refused it; a regular file's size is now checked
// against what it declares first. A file one byte short or long, or with a
// damaged count, is refused the same way, and a whole one still reads.
func TestReadFileSizeChecked(t *testing.T) {
	dir := t.TempDir()
	h, p := sample()
	var buf bytes.Buffer
	if err := Encode(&buf, h, p); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if hb, pb, err := ReadFile(write("whole.drg", whole)); err != nil || !bytes.Equal(hb, h) || len(pb) != len(p) || cap(pb) != len(p) {
		t.Fatalf("whole file: %v, %d parameters (capacity %d)", err, len(pb), cap(pb))
	}
	if _, _, err := ReadFile(write("short.drg", whole[:len(whole)-1])); !errors.Is(err, ErrTruncated) {
		t.Errorf("a byte short: %v, want ErrTruncated", err)
	}
	if _, _, err := ReadFile(write("long.drg", append(bytes.Clone(whole), 0))); !errors.Is(err, ErrChecksum) {
		t.Errorf("a byte long: %v, want ErrChecksum", err)
	}
	// The count, after the magic, version, header length and header.
	at := 16 + len(h)
	big := bytes.Clone(whole[:at+8])
	binary.LittleEndian.PutUint64(big[at:], 1<<28)
	path := write("sparse.drg", big)
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Skip(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadFile(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), path) {
		t.Errorf("sparse file: %v, want ErrTruncated naming %s", err, path)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("ReadFile of a sparse file declaring 2^28 parameters allocated %d bytes", n)
	}
}
