package experiments

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"decoreg/internal/gemm"
)

// Journal files: the results of an experiment's runs, one JSON object per
// line, appended as each run finishes.
const JournalFile = "results.jsonl"

// Meta is what every line of a journal holds besides the experiment's own
// fields: which run it is, and where and from what it was computed.
// Experiments embed it in their result types (its fields are flattened into
// the line).
type Meta struct {
	Experiment string  `json:"experiment"`
	Key        string  `json:"key"`               // identifies the run within the experiment; unique per journal
	Command    string  `json:"command,omitempty"` // the command whose plan the run belongs to (without --shard and --out)
	Seconds    float64 `json:"seconds"`           // wall time of the run
	Started    string  `json:"started"`           // RFC 3339
	Commit     string  `json:"commit,omitempty"`
	Host       string  `json:"host,omitempty"`
	Kernel     string  `json:"kernel,omitempty"`
	Threads    int     `json:"threads"`
	GoMaxProcs int     `json:"gomaxprocs"`
	GoVersion  string  `json:"go_version"`
	// Data is, for a run on a dataset (its key's "dataset=NAME"), the
	// fingerprint of NAME's files in the data directory (DataFingerprint);
	// absent in lines written before it was recorded.
	Data string `json:"data,omitempty"`
}

// M returns m; through embedding it gives every result type access to its
// Meta.
func (m *Meta) M() *Meta { return m }

// Line is a result type: a struct that embeds Meta.
type Line interface{ M() *Meta }

// ReadJournal reads the lines of path, a journal of experiment name ("":
// any), decoding each into a new value made by newLine. A missing file is
// no lines. A last line without its newline (a write cut off by a crash)
// is ignored, and reported in partial; a malformed complete line, or one
// of another experiment, is an error naming the file and line. Lines whose
// Key repeats an earlier one are dropped (the first is kept).
func ReadJournal[T Line](path, name string, newLine func() T) (lines []T, partial bool, err error) {
	j, err := readJournal(path, name, newLine)
	return j.lines, j.partial, err
}

// journal is what readJournal read.
type journal[T Line] struct {
	lines   []T
	raw     [][]byte // each kept line's bytes, as written (a merge copies them so, fields this build does not know kept)
	partial bool     // a last line cut off, left out
	// differ are the keys of lines left out for repeating an earlier
	// line's key with other results (a journal joined from shards twice,
	// or edited), each once.
	differ []string
}

// readJournal is ReadJournal that also returns the kept lines' bytes and
// the keys repeated with other results.
func readJournal[T Line](path, name string, newLine func() T) (j journal[T], err error) {
	lines, raw, partial, differ, err := readJournalLines(path, name, newLine)
	return journal[T]{lines, raw, partial, differ}, err
}

func readJournalLines[T Line](path, name string, newLine func() T) (lines []T, raw [][]byte, partial bool, differ []string, err error) {
	// A FIFO would block the read for ever, and a device (a link to
	// /dev/null) would take the results and keep none.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		what := "not a regular file"
		switch m := fi.Mode(); {
		case m&os.ModeNamedPipe != 0:
			what = "a named pipe (FIFO)"
		case m&os.ModeDevice != 0:
			what = "a device"
		case m.IsDir():
			what = "a directory"
		case m&os.ModeSocket != 0:
			what = "a socket"
		}
		return nil, nil, false, nil, &InputError{fmt.Errorf("%s is %s: a journal must be a regular file", path, what)}
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, false, nil, nil
	}
	if err != nil {
		return nil, nil, false, nil, err
	}
	if n := completeLen(b); n < len(b) {
		partial = true
		b = b[:n]
	}
	// A byte order mark an editor put before the first line is not part of
	// it (it was reported as "invalid character 'ï'").
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	fields := resultFields(newLine()) // the results every line records, checked in each
	seen := map[string]int{}          // each key's kept line in raw
	differs := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for ln := 1; sc.Scan(); ln++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		v := newLine()
		if err := json.Unmarshal(sc.Bytes(), v); err != nil {
			if f := undecodable(sc.Bytes(), fields); f != "" {
				return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d: field %q: %v", path, ln, f, err)}
			}
			return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d: %v", path, ln, err)}
		}
		if v.M().Key == "" {
			return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d: no \"key\"", path, ln)}
		}
		if sec := v.M().Seconds; !(sec >= 0) || math.IsInf(sec, 0) {
			return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d: \"seconds\" is %v, not a run's time", path, ln, sec)}
		}
		if name != "" && v.M().Experiment != name {
			return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d is a result of experiment %q, not %q (each experiment needs its own directory)", path, ln, v.M().Experiment, name)}
		}
		if why := badResult(sc.Bytes(), fields); why != "" {
			// A hand-edited line without one of its results, or with a
			// null for it: the report read it as 0.
			return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d (%s): %s", path, ln, v.M().Key, why)}
		}
		if c, ok := any(v).(lineChecker); ok {
			if err := c.check(); err != nil {
				return nil, nil, false, nil, &InputError{fmt.Errorf("%s: line %d (%s): %v", path, ln, v.M().Key, err)}
			}
		}
		if k, ok := seen[v.M().Key]; ok {
			if !differs[v.M().Key] && !sameResults(raw[k], sc.Bytes()) {
				differs[v.M().Key] = true
				differ = append(differ, v.M().Key)
			}
			continue
		}
		seen[v.M().Key] = len(raw)
		lines = append(lines, v)
		raw = append(raw, slices.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		return nil, nil, false, nil, fmt.Errorf("%s: %v", path, err)
	}
	return lines, raw, partial, differ, nil
}

// lineChecker is a journal line whose values its report relies on (a
// count that a formula takes, a result that cannot be negative): check
// refuses a line, edited by hand, that breaks them.
type lineChecker interface{ check() error }

// resultField is a result field of a journal line's type: its JSON name
// and options and its type.
type resultField struct {
	name, opts string
	t          reflect.Type
}

// resultFields returns the result fields of v's type (a pointer to a
// struct; embedded structs walked, Meta, whose bookkeeping the journal's
// checks see to, left out).
func resultFields(v any) []resultField {
	var out []resultField
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft == reflect.TypeFor[Meta]() {
					continue
				}
				if ft.Kind() == reflect.Struct {
					walk(ft)
					continue
				}
			}
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out = append(out, resultField{name, opts, f.Type})
		}
	}
	if t := reflect.TypeOf(v); t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		walk(t.Elem())
	} else if t.Kind() == reflect.Struct {
		walk(t)
	}
	return out
}

// lineFields decodes a journal line's top-level fields, their names folded
// as encoding/json matches them (foldName); of names that fold alike, a
// value that is not null (encoding/json keeps the field's value at a null);
// nil for a line that is not an object.
func lineFields(line []byte) map[string]json.RawMessage {
	var have map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(line, []byte("\ufeff")), &have) != nil {
		return nil
	}
	folded := make(map[string]json.RawMessage, len(have))
	for k, v := range have {
		f := foldName(k)
		if old, ok := folded[f]; !ok || isNull(old) {
			folded[f] = v
		}
	}
	return folded
}

// foldName is the key a JSON name matches a field by, as encoding/json
// folds it: ASCII letters upper-cased, other runes to the upper case of
// their lower case ("ſeen" is "SEEN").
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		b.WriteRune(unicode.ToUpper(unicode.ToLower(r)))
	}
	return b.String()
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// badResult returns why the JSON object line lacks a result of fields
// (resultFields) that its type always records (its encoding writes it: a
// tag without omitempty): `no "x"` for a field left out, `"x" is null` for
// a number, string or bool given as null (decoded as 0, "" or false); ""
// for none. The report read both as 0.
func badResult(line []byte, fields []resultField) string {
	have := lineFields(line)
	if have == nil {
		return ""
	}
	unmarshaler := reflect.TypeFor[json.Unmarshaler]()
	for _, f := range fields {
		raw, ok := have[foldName(f.name)]
		omit := strings.Contains(","+f.opts+",", ",omitempty,") || strings.Contains(","+f.opts+",", ",omitzero,")
		switch {
		case !ok && !omit:
			return fmt.Sprintf("no %q, which every run records", f.name)
		case ok && isNull(raw) && !f.t.Implements(unmarshaler) && !reflect.PointerTo(f.t).Implements(unmarshaler):
			switch f.t.Kind() {
			case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
				return fmt.Sprintf("%q is null, which no run records", f.name)
			}
		}
	}
	return ""
}

// undecodable returns the name of the first of fields whose value in line
// does not decode into its type ("" for none found).
func undecodable(line []byte, fields []resultField) string {
	have := lineFields(line)
	for _, f := range fields {
		if raw, ok := have[foldName(f.name)]; ok && json.Unmarshal(raw, reflect.New(f.t).Interface()) != nil {
			return f.name
		}
	}
	return ""
}

// completeLen is the length of b's complete lines: up to its last
// newline, or all of b where the text after it is a whole JSON object (a
// journal edited by hand and saved without its last newline), which is
// kept. Text that is not (a line cut off by a crash) is left out.
func completeLen(b []byte) int {
	i := bytes.LastIndexByte(b, '\n') + 1
	if i < len(b) && wholeObject(b[i:]) {
		return len(b)
	}
	return i
}

// wholeObject reports whether b is a JSON object, spaces around it (and a
// byte order mark before it: a journal of one line saved by an editor).
func wholeObject(b []byte) bool {
	b = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(b), []byte("\ufeff")))
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// appendLine appends v's JSON and a newline to path in one write, so that
// shards appending to the same journal side by side do not interleave and
// an interrupted run leaves no partial line. A last line left without its
// newline by a crash is cut off first.
func appendLine(path, name, key string, v any) (added bool, err error) {
	b, err := json.Marshal(v)
	if err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// Shards appending side by side: the lock keeps one from cutting
	// another's line while it is being written, and two processes that
	// ran the same task (the same shard started twice) from both
	// recording it.
	if err := lockFile(f); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	if err := cutPartial(f); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	all, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return false, err
	}
	if bytes.Contains(all, keyField(key)) {
		return false, nil
	}
	if l, ok := v.(Line); ok {
		// The dataset's files were checked when the run began; another
		// process may have added runs on other files of it since (another
		// --data), which the report would put in one cell.
		if err := otherData(path, all, key, l.M().Data); err != nil {
			return false, err
		}
	}
	if name != "" {
		// The journal's kind was checked when the run began; another
		// process may have begun it since with runs of another kind
		// (--quick beside full, another --n), which its report would mix.
		first, err := firstKey(f)
		if err != nil {
			return false, fmt.Errorf("%s: %v", path, err)
		}
		if have, want := kindOf(name, first), kindOf(name, key); first != "" && have != want {
			return false, &InputError{fmt.Errorf("%s holds %s (such as %q), begun by another process meanwhile: this run's result (%s) is not added to them; give it another --out", path, have, first, want)}
		}
	}
	if _, err := f.Write(b); err != nil {
		return false, err
	}
	return true, f.Close()
}

// firstKey returns the key of the journal f's first line, "" for an
// empty journal (or one whose first line is cut off).
func firstKey(f *os.File) (string, error) {
	line, err := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62)).ReadBytes('\n')
	if err == io.EOF {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var m struct{ Key string }
	if err := json.Unmarshal(bytes.TrimPrefix(line, []byte("\ufeff")), &m); err != nil {
		return "", nil // a bad line: the journal's reader names it
	}
	return m.Key, nil
}

// keyField is how a key appears in a journal line (Meta's second field).
func keyField(key string) []byte {
	q, _ := json.Marshal(key)
	return append(append([]byte(`"key":`), q...), ',')
}

// otherData refuses a line of key made on data (a fingerprint, "" for
// none) into the journal at path, whose bytes are journal, where a line
// of key's dataset was made on other files. Lines without a fingerprint,
// or that do not decode, are not compared (the pre-check and the reader
// see to them).
func otherData(path string, journal []byte, key, data string) error {
	ds := keySegment(key, "dataset")
	if ds == "" || data == "" {
		return nil
	}
	for line := range bytes.SplitSeq(journal, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"data":`)) {
			continue
		}
		var m struct{ Key, Data string }
		if json.Unmarshal(bytes.TrimPrefix(line, []byte("\ufeff")), &m) != nil || m.Data == "" || m.Data == data || keySegment(m.Key, "dataset") != ds {
			continue
		}
		return &InputError{fmt.Errorf("%s holds runs of dataset %s made on other files (data %s, such as %q), added by another process meanwhile: this run's result (data %s) is not added to them; give it another --out", path, ds, m.Data, m.Key, data)}
	}
	return nil
}

// journalHasKey reports whether the journal at path holds a complete line
// for key (another process may have run it since this one read the
// journal). A last line cut off without its newline does not count: its
// run is to be redone, and the next append cuts it.
func journalHasKey(path, key string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	return bytes.Contains(b[:completeLen(b)], keyField(key))
}

// cutPartial truncates f after its last newline when it does not end in
// one, but for a last line that is a whole JSON object (a journal edited
// and saved without its last newline), which it ends with its newline.
func cutPartial(f *os.File) error {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	// Find the last newline, reading backwards in blocks.
	const block = 64 << 10
	end := st.Size()
	for end > 0 {
		start := max(end-block, 0)
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return endOrCut(f, start+int64(i)+1, st.Size())
		}
		end = start
	}
	return endOrCut(f, 0, st.Size())
}

// endOrCut ends f, of size bytes, whose last line starts at from and has
// no newline: with a newline where the line is a whole JSON object, else
// by cutting the line off.
func endOrCut(f *os.File, from, size int64) error {
	if size-from > 1<<30 { // no line of a run is that long (readJournal's limit)
		return f.Truncate(from)
	}
	tail := make([]byte, size-from)
	if _, err := f.ReadAt(tail, from); err != nil && err != io.EOF {
		return err
	}
	if wholeObject(tail) {
		_, err := f.Write([]byte{'\n'}) // f appends
		return err
	}
	return f.Truncate(from)
}

// Task is one run of an experiment: its key (unique within the
// experiment, and stable, since resuming skips the keys already in the
// journal) and the function that computes its line.
type Task[T Line] struct {
	Key string
	Run func(ctx context.Context) (T, error)
}

// RunOptions say which of an experiment's tasks to run and how.
type RunOptions struct {
	Out           string // the experiment's directory: Out/results.jsonl, Out/REPORT.md, figures
	Shard, Shards int    // run the tasks whose index is Shard modulo Shards (Shards 0 means 1)
	Threads       int    // threads per run (recorded; the tasks use it)
	Commit        string
	Command       string    // recorded in every line (Meta.Command)
	Log           io.Writer // one line per run; nil discards
	// DataDir is the real-data experiments' data directory: a run of a
	// key "dataset=NAME,..." records the fingerprint of NAME's files
	// there (Meta.Data), and the journal's runs of NAME must have been
	// made on the same files. Lines that predate the fingerprint are
	// taken to come from OldDataDir (the default data directory), where
	// it has NAME.
	DataDir, OldDataDir string
}

// JournalSummary counts what RunTasks did.
type JournalSummary struct {
	Planned, Shard, Skipped, Ran int
	Failed                       int // runs done now that recorded a failure (see Failer)
	// Dropped are runs done now whose line another process recorded
	// first (not in Ran).
	Dropped int
	Seconds float64
}

// Failer is implemented by lines that can record a run that failed on its
// data (RegressLine).
type Failer interface{ Failed() bool }

// RunTasks runs the shard's tasks whose key is not yet in Out's journal,
// in order, appending each line as soon as its task is done. A task's
// error stops the run (it is returned, naming the task); so does ctx, in
// which case the task in progress writes nothing. describe, if not nil,
// gives the log's summary of a finished line.
func RunTasks[T Line](ctx context.Context, name string, tasks []Task[T], o RunOptions, newLine func() T, describe func(T) string) (JournalSummary, error) {
	var sum JournalSummary
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	shards := max(o.Shards, 1)
	if o.Shard < 0 || o.Shard >= shards {
		return sum, fmt.Errorf("bad shard %d/%d", o.Shard, shards)
	}
	seenKey := map[string]bool{}
	for _, t := range tasks {
		if seenKey[t.Key] {
			panic("experiments: duplicate task key " + t.Key)
		}
		seenKey[t.Key] = true
	}
	path := filepath.Join(o.Out, JournalFile)
	j, err := readJournal(path, name, newLine)
	if err != nil {
		return sum, &InputError{err}
	}
	done, partial := j.lines, j.partial
	warnDiffer(logw, path, j.differ, "the runs take")
	if len(tasks) > 0 { // the plan's kind (--quick or full, and --n's size) is the journal's
		if err := oneKind(path, name, done, kindOf(name, tasks[0].Key)); err != nil {
			return sum, err
		}
	}
	fps := fingerprints{}
	if o.DataDir != "" {
		if err := sameData(path, tasks, done, o.DataDir, o.OldDataDir, fps); err != nil {
			return sum, err
		}
	}
	if partial {
		fmt.Fprintf(logw, "warning: %s ends in a partial line (a run cut off); it will be cut and the run redone\n", path)
	}
	have := map[string]bool{}
	for _, l := range done {
		have[l.M().Key] = true
	}
	var todo []Task[T]
	sum.Planned = len(tasks)
	for i, t := range tasks {
		if i%shards != o.Shard {
			continue
		}
		sum.Shard++
		if have[t.Key] {
			sum.Skipped++
			continue
		}
		todo = append(todo, t)
	}
	fmt.Fprintf(logw, "experiment %s: %d runs in the plan, %d in shard %d/%d, %d already done, %d to run\n",
		name, sum.Planned, sum.Shard, o.Shard, shards, sum.Skipped, len(todo))
	host, _ := os.Hostname()
	start := time.Now()
	for i, t := range todo {
		if err := ctx.Err(); err != nil {
			return sum, fmt.Errorf("interrupted after %d of %d runs: %w", i, len(todo), err)
		}
		if journalHasKey(path, t.Key) {
			sum.Skipped++
			fmt.Fprintf(logw, "[%d/%d] %s: done by another process meanwhile\n", i+1, len(todo), t.Key)
			continue
		}
		t0 := time.Now()
		line, err := t.Run(ctx)
		if ctx.Err() != nil {
			return sum, fmt.Errorf("interrupted during %s (%d of %d runs done): %w", t.Key, i, len(todo), ctx.Err())
		}
		if err != nil {
			return sum, fmt.Errorf("%s %s: %w", name, t.Key, err)
		}
		m := line.M()
		m.Experiment, m.Key = name, t.Key
		m.Seconds = time.Since(t0).Seconds()
		m.Started = t0.UTC().Format(time.RFC3339)
		m.Commit, m.Host, m.Kernel, m.Command = o.Commit, host, gemm.Kernel(), o.Command
		m.Threads, m.GoMaxProcs, m.GoVersion = o.Threads, runtime.GOMAXPROCS(0), runtime.Version()
		if ds := keySegment(t.Key, "dataset"); ds != "" && o.DataDir != "" {
			m.Data = fps.of(o.DataDir, ds)
		}
		added, err := appendLine(path, name, t.Key, line)
		if err != nil {
			return sum, err
		}
		if !added {
			sum.Dropped++
			fmt.Fprintf(logw, "[%d/%d] %s: recorded by another process meanwhile; this run's result dropped\n", i+1, len(todo), t.Key)
			continue
		}
		sum.Ran++
		if f, ok := any(line).(Failer); ok && f.Failed() {
			sum.Failed++
		}
		sum.Seconds = time.Since(start).Seconds()
		msg := ""
		if describe != nil {
			msg = ": " + describe(line)
		}
		fmt.Fprintf(logw, "[%d/%d] %s%s (%.1fs)\n", i+1, len(todo), t.Key, msg, m.Seconds)
	}
	return sum, nil
}

// keySegment is the value of the segment "name=VALUE" of a run's key, or
// "".
func keySegment(key, name string) string {
	for _, part := range strings.Split(key, ",") {
		if v, ok := strings.CutPrefix(part, name+"="); ok {
			return v
		}
	}
	return ""
}

// DataFingerprint is the fingerprint of dataset name's files in the data
// directory dir: the first 16 hex digits of the SHA-256 of its data and
// test-mask files' bytes, "" where they cannot be read.
func DataFingerprint(dir, name string) string {
	h := sha256.New()
	for _, f := range []string{DataFile, MaskFile} {
		b, err := os.ReadFile(filepath.Join(dir, name, f))
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// fingerprints caches DataFingerprint by directory and dataset.
type fingerprints map[[2]string]string

func (f fingerprints) of(dir, name string) string {
	k := [2]string{dir, name}
	v, ok := f[k]
	if !ok {
		v = DataFingerprint(dir, name)
		f[k] = v
	}
	return v
}

// sameData refuses the plan tasks on dataDir into the journal at path
// holding done when a run of one of the plan's datasets there was made on
// other files: its fingerprint (Meta.Data) differs from the dataset's in
// dataDir, or, for a line that predates fingerprints, the dataset's files
// in oldDir (where it made its runs) differ from dataDir's. The report
// would put them in one cell.
func sameData[T Line](path string, tasks []Task[T], done []T, dataDir, oldDir string, fps fingerprints) error {
	planned := map[string]bool{}
	for _, t := range tasks {
		if ds := keySegment(t.Key, "dataset"); ds != "" {
			planned[ds] = true
		}
	}
	for _, l := range done {
		m := l.M()
		ds := keySegment(m.Key, "dataset")
		if !planned[ds] {
			continue
		}
		cur := fps.of(dataDir, ds)
		have, from := m.Data, ""
		if have == "" && oldDir != "" {
			have = fps.of(oldDir, ds)
			from = fmt.Sprintf(", a run recorded before runs noted their data, so taken as made on %s's, the default", filepath.Join(oldDir, ds))
		}
		if cur != "" && have != "" && have != cur {
			return &InputError{fmt.Errorf("%s holds runs of dataset %s made on other files than %s's (such as %q%s): runs on these would be reported with them; give them another --out", path, ds, filepath.Join(dataDir, ds), m.Key, from)}
		}
	}
	return nil
}

// dataSeen records, per dataset, the first fingerprint (Meta.Data) seen
// in journals and where, to refuse lines of another (oneData).
type dataSeen map[string][2]string // dataset: {fingerprint, path}

// oneData refuses the lines of the journal at path whose dataset's
// fingerprint differs from the one seen (in path or an earlier journal):
// runs on other files of a dataset, which a report would put in one
// cell. Lines without a fingerprint are not compared.
func oneData[T Line](path string, lines []T, seen dataSeen) error {
	for _, l := range lines {
		m := l.M()
		ds := keySegment(m.Key, "dataset")
		if ds == "" || m.Data == "" {
			continue
		}
		first, ok := seen[ds]
		if !ok {
			seen[ds] = [2]string{m.Data, path}
			continue
		}
		if first[0] != m.Data {
			where := path + " holds"
			if first[1] != path {
				where = first[1] + " and " + path + " hold"
			}
			return &InputError{fmt.Errorf("%s runs of dataset %s made on different files (data %s and %s, such as %q): they would be reported together", where, ds, first[0], m.Data, m.Key)}
		}
	}
	return nil
}

// Provenance summarises the journal lines' origin for a report: the
// commits, hosts and kernels they came from, the sum of their run times
// and the span from the first start to the last finish.
func Provenance[T Line](lines []T) string {
	commits, hosts, kernels := map[string]bool{}, map[string]bool{}, map[string]bool{}
	total := 0.0
	var first, last time.Time
	for _, l := range lines {
		m := l.M()
		commits[m.Commit], hosts[m.Host], kernels[m.Kernel] = true, true, true
		total += m.Seconds
		if t, err := time.Parse(time.RFC3339, m.Started); err == nil {
			end := t.Add(time.Duration(m.Seconds * float64(time.Second)))
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if end.After(last) {
				last = end
			}
		}
	}
	keys := func(m map[string]bool) []string {
		var out []string
		for k := range m {
			if k == "" {
				k = "(unknown)"
			}
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	return fmt.Sprintf("%d runs; run time %s (the sum of the runs' wall times), %s from the first start to the last finish; commit %v; %d host(s); kernel %v.",
		len(lines), fmtDur(total), fmtDur(last.Sub(first).Seconds()), keys(commits), len(hosts), keys(kernels))
}

func fmtDur(s float64) string {
	if !(s >= 0 && s < 1e9) { // beyond time.Duration's 292 years, or not a time
		return strconv.FormatFloat(s, 'g', 4, 64) + " s"
	}
	return (time.Duration(s) * time.Second).Round(time.Second).String()
}

// warnDiffer writes to w (nil: nowhere) a warning about the keys of the
// journal at path whose lines repeat with other results, of which what
// (the runs, the report, the merge) takes the first.
func warnDiffer(w io.Writer, path string, keys []string, what string) {
	if w == nil || len(keys) == 0 {
		return
	}
	show := keys
	if len(show) > 5 {
		show = show[:5]
	}
	more := ""
	if len(keys) > len(show) {
		more = fmt.Sprintf(" and %d more", len(keys)-len(show))
	}
	fmt.Fprintf(w, "warning: %s: %d run(s) appear on more than one line with different results (%s%s); %s each one's first line (delete the lines not meant)\n",
		path, len(keys), strings.Join(show, "; "), more, what)
}
