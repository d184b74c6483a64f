// Package modelfile reads and writes decoreg's model files.
//
// A model file is, in order:
//
//	magic    8 bytes  "DECOREG\x00"
//	version  uint32   little-endian; this package writes Version
//	hlen     uint32   length of the header in bytes
//	header   hlen     bytes of JSON (architecture, tokenization, scaling, metadata)
//	n        uint64   number of float32 parameters
//	params   4n bytes little-endian IEEE-754 float32, the flat parameter arena
//	crc      uint32   CRC-32C (Castagnoli) of every byte above
//
// Reading checks the magic, refuses versions newer than Version with an
// error naming both numbers, and reports a truncated or corrupt file.
// Writing goes through package outfile: a regular file is written
// atomically (it appears complete or not at all).
package modelfile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"

	"decoreg/internal/memlimit"
	"decoreg/internal/outfile"
)

// Version is the format version this package writes and the newest it reads.
const Version = 1

const magic = "DECOREG\x00"

// Limits that protect Read from absurd sizes in corrupt files; Encode
// refuses to write a file over them.
const (
	maxHeader = MaxHeader
	maxParams = 1 << 34
)

// MaxHeader is the largest JSON header, in bytes, that a model file may
// hold: Decode calls a larger one corrupt, so Encode refuses to write it
// (ErrTooLarge).
const MaxHeader = 64 << 20

var (
	// ErrNotModel means the file does not start with the model magic.
	ErrNotModel = errors.New("not a decoreg model file")
	// ErrTruncated means the file ends early.
	ErrTruncated = errors.New("model file is truncated")
	// ErrChecksum means the stored checksum does not match the contents.
	ErrChecksum = errors.New("model file is corrupt (checksum mismatch)")
	// ErrVersion means the file was written by a newer decoreg.
	ErrVersion = errors.New("model file version not supported")
	// ErrTooLarge means Encode was given a header or parameters over the
	// limits that Decode enforces.
	ErrTooLarge = errors.New("model too large for a model file")
	// ErrNoRoom means a model read from a stream declares more
	// parameters than the process's memory can hold.
	ErrNoRoom = errors.New("model too large for this process's memory")
)

// damagedError is ErrChecksum's error for a file whose declared sizes are
// damaged: it is corrupt, but no checksum was compared (it said "checksum
// mismatch": helper-149).
type damagedError struct{ msg string }

func (e damagedError) Error() string        { return "model file is corrupt: " + e.msg }
func (e damagedError) Is(target error) bool { return target == ErrChecksum }

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode writes a model file with the given JSON header and parameters to w.
// A header over MaxHeader bytes, or more parameters than Decode reads, is
// refused before anything is written (an error wrapping ErrTooLarge).
func Encode(w io.Writer, header []byte, params []float32) error {
	if len(header) > MaxHeader {
		return fmt.Errorf("%w: its header is %d bytes, over the %d (64 MiB) a model file allows (are the column names very long?)", ErrTooLarge, len(header), MaxHeader)
	}
	if uint64(len(params)) > maxParams {
		return fmt.Errorf("%w: %d parameters, over the %d a model file allows", ErrTooLarge, len(params), uint64(maxParams))
	}
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	var buf [8]byte
	bw.WriteString(magic)
	binary.LittleEndian.PutUint32(buf[:4], Version)
	bw.Write(buf[:4])
	binary.LittleEndian.PutUint32(buf[:4], uint32(len(header)))
	bw.Write(buf[:4])
	bw.Write(header)
	binary.LittleEndian.PutUint64(buf[:8], uint64(len(params)))
	bw.Write(buf[:8])
	for _, p := range params {
		binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(p))
		bw.Write(buf[:4])
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf[:4], h.Sum32())
	_, err := w.Write(buf[:4])
	return err
}

// Decode reads a model file from r and returns its header and parameters.
// Data after the checksum is an error (ErrChecksum).
func Decode(r io.Reader) (header []byte, params []float32, err error) {
	return decode(r, -1)
}

// decode is Decode of a stream of size bytes, or of unknown size where size
// is negative. A known size is checked against the sizes the file declares
// before its parameters are read, so that a short or sparse file declaring
// billions of parameters is refused without reading or allocating them,
// and the parameters are allocated once, at their size.
func decode(r io.Reader, size int64) (header []byte, params []float32, err error) {
	h := crc32.New(castagnoli)
	tr := io.TeeReader(bufio.NewReaderSize(r, 1<<16), h)
	read := func(p []byte) error {
		if _, err := io.ReadFull(tr, p); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return ErrTruncated
			}
			return err
		}
		return nil
	}
	var head [16]byte
	if got, err := io.ReadFull(tr, head[:8]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if got > 0 && strings.HasPrefix(magic, string(head[:got])) {
				return nil, nil, ErrTruncated // "DECOREG", cut within the magic
			}
			return nil, nil, ErrNotModel
		}
		return nil, nil, err
	}
	if string(head[:8]) != magic {
		if head[0] == 0x1f && head[1] == 0x8b {
			return nil, nil, fmt.Errorf("%w (it is gzip-compressed: decompress it first, with gunzip)", ErrNotModel)
		}
		return nil, nil, ErrNotModel
	}
	if err := read(head[8:16]); err != nil {
		return nil, nil, err
	}
	if v := binary.LittleEndian.Uint32(head[8:12]); v > Version || v == 0 {
		return nil, nil, fmt.Errorf("%w: file has version %d, this decoreg reads up to version %d", ErrVersion, v, Version)
	}
	hlen := binary.LittleEndian.Uint32(head[12:16])
	if hlen > maxHeader {
		return nil, nil, damagedError{fmt.Sprintf("header length %d, past the most a model file has (%d)", hlen, maxHeader)}
	}
	if size >= 0 && int64(hlen)+16+8+4 > size {
		return nil, nil, fmt.Errorf("%w: it is %d bytes, and its start declares a header of %d, so it needs at least %d (or the header length is damaged)", ErrTruncated, size, hlen, int64(hlen)+16+8+4)
	}
	// Read the header as it comes rather than allocate hlen bytes up front,
	// so that a short file claiming a long header costs little.
	var hb bytes.Buffer
	if _, err := io.CopyN(&hb, tr, int64(hlen)); err != nil {
		if err == io.EOF {
			return nil, nil, ErrTruncated
		}
		return nil, nil, err
	}
	header = hb.Bytes()
	var nb [8]byte
	if err := read(nb[:]); err != nil {
		return nil, nil, err
	}
	n := binary.LittleEndian.Uint64(nb[:])
	if n > maxParams {
		return nil, nil, damagedError{fmt.Sprintf("parameter count %d, past the most a model has (the header length or the count is damaged)", n)}
	}
	if size >= 0 {
		want := int64(16) + int64(hlen) + 8 + 4*int64(n) + 4
		switch {
		case size < want:
			return nil, nil, fmt.Errorf("%w: it is %d bytes, its header and parameter count (%d) declare %d (the file is cut short, or the count is damaged)", ErrTruncated, size, n, want)
		case size > want:
			return nil, nil, damagedError{fmt.Sprintf("it is %d bytes, its header and parameter count (%d) declare %d (data after the checksum, or the count is damaged)", size, n, want)}
		}
		params = make([]float32, 0, n)
	} else {
		// A stream (a pipe, a FIFO) says its size only at its end: the
		// parameters grow as they come, and are checked against the
		// count only then. A count the process's memory cannot hold is
		// refused now (22 bytes declaring 2^34 parameters, then zeros
		// without end, grew to gigabytes).
		if l, ok := memlimit.Available(); ok && 4*float64(n) > 0.9*l.Bytes {
			return nil, nil, fmt.Errorf("%w: its parameter count (%d) declares %.3g GiB, and %s leaves this process %.2g GiB (or the count is damaged)",
				ErrNoRoom, n, 4*float64(n)/(1<<30), l.What, max(l.Bytes, 0)/(1<<30))
		}
		params = make([]float32, 0, min(n, 1<<20))
	}
	var chunk [4096]byte
	for left := n * 4; left > 0; {
		c := chunk[:min(left, uint64(len(chunk)))]
		if err := read(c); err != nil {
			return nil, nil, err
		}
		for i := 0; i < len(c); i += 4 {
			params = append(params, math.Float32frombits(binary.LittleEndian.Uint32(c[i:])))
		}
		left -= uint64(len(c))
	}
	sum := h.Sum32()
	var crc [4]byte
	if _, err := io.ReadFull(tr, crc[:]); err != nil {
		return nil, nil, ErrTruncated
	}
	if binary.LittleEndian.Uint32(crc[:]) != sum {
		return nil, nil, ErrChecksum
	}
	switch _, err := io.ReadFull(tr, crc[:1]); {
	case err == nil:
		return nil, nil, fmt.Errorf("%w: data after the checksum", ErrChecksum)
	case err != io.EOF:
		return nil, nil, err
	}
	return header, params, nil
}

// WriteFile writes a model file to path through package outfile: a
// regular file atomically (to a temporary file in the same directory,
// synced, then renamed over it; on error nothing is left behind and an
// existing file is untouched; a read-only file is refused), a symbolic link
// written through to its target, a device or FIFO directly.
func WriteFile(path string, header []byte, params []float32) error {
	return outfile.WriteFile(context.Background(), path, func(w io.Writer) error {
		return Encode(w, header, params)
	})
}

// WriteTo is Encode returning the number of bytes written, for io.WriterTo
// implementations.
func WriteTo(w io.Writer, header []byte, params []float32) (int64, error) {
	cw := &countWriter{w: w}
	err := Encode(cw, header, params)
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReadFile reads the model file at path. Errors name the file. A file that
// is not a model is refused after its first bytes, however long it is.
func ReadFile(path string) (header []byte, params []float32, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	header, params, err = decode(f, size)
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Op == "read" {
		err = pe.Err // the path once: "m: is a directory", not "m: read m: is a directory"
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return header, params, nil
}
