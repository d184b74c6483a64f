package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"decoreg/internal/outfile"
)

type testLine struct {
	Meta
	V int `json:"v"`
}

func testTasks(n int, calls *[]string) []Task[*testLine] {
	var ts []Task[*testLine]
	for i := range n {
		key := fmt.Sprintf("i=%d", i)
		ts = append(ts, Task[*testLine]{Key: key, Run: func(context.Context) (*testLine, error) {
			*calls = append(*calls, key)
			return &testLine{V: i * i}, nil
		}})
	}
	return ts
}

func newTestLine() *testLine { return new(testLine) }

func readKeys(t *testing.T, dir string) []string {
	t.Helper()
	lines, partial, err := ReadJournal(filepath.Join(dir, JournalFile), "test", newTestLine)
	if err != nil || partial {
		t.Fatalf("ReadJournal: %v, partial %v", err, partial)
	}
	var keys []string
	for _, l := range lines {
		keys = append(keys, l.Key)
		if l.Experiment != "test" || l.GoVersion == "" {
			t.Errorf("line %s: meta not filled: %+v", l.Key, l.Meta)
		}
	}
	sort.Strings(keys)
	return keys
}

// Shards partition the plan; together they run every task exactly once.
func TestJournalShardsPartition(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	for s := range 3 {
		sum, err := RunTasks(context.Background(), "test", testTasks(10, &calls), RunOptions{Out: dir, Shard: s, Shards: 3}, newTestLine, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{4, 3, 3}[s]; sum.Shard != want || sum.Ran != want {
			t.Errorf("shard %d: %+v, want %d runs", s, sum, want)
		}
	}
	keys := readKeys(t, dir)
	if len(keys) != 10 || len(calls) != 10 {
		t.Fatalf("keys %v, calls %v", keys, calls)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			t.Errorf("duplicate %s", keys[i])
		}
	}
}

// Resuming after an interruption runs only what is missing and adds no
// duplicate line; a partial last line (a crash mid-write) is cut and redone.
func TestJournalResume(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	ctx, cancel := context.WithCancel(context.Background())
	tasks := testTasks(6, &calls)
	// Cancel during the fourth task: it must leave no line.
	tasks[3].Run = func(context.Context) (*testLine, error) { cancel(); return &testLine{V: 9}, nil }
	if _, err := RunTasks(ctx, "test", tasks, RunOptions{Out: dir}, newTestLine, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("want a cancellation error, have %v", err)
	}
	if got := readKeys(t, dir); !reflect.DeepEqual(got, []string{"i=0", "i=1", "i=2"}) {
		t.Fatalf("after the interruption: %v", got)
	}
	// A crash in the middle of a write.
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"experiment":"test","key":"i=4","v":1`)
	f.Close()
	if _, partial, err := ReadJournal(filepath.Join(dir, JournalFile), "test", newTestLine); err != nil || !partial {
		t.Fatalf("partial line not reported: %v %v", partial, err)
	}
	calls = nil
	sum, err := RunTasks(context.Background(), "test", testTasks(6, &calls), RunOptions{Out: dir}, newTestLine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 3 || sum.Ran != 3 || !reflect.DeepEqual(calls, []string{"i=3", "i=4", "i=5"}) {
		t.Errorf("resume: %+v, calls %v", sum, calls)
	}
	if got := readKeys(t, dir); len(got) != 6 {
		t.Errorf("after resuming: %v", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	if n := strings.Count(string(b), "\n"); n != 6 || strings.Contains(string(b), `"v":1{`) {
		t.Errorf("journal has %d lines:\n%s", n, b)
	}
	// A third run does nothing.
	calls = nil
	if sum, err := RunTasks(context.Background(), "test", testTasks(6, &calls), RunOptions{Out: dir}, newTestLine, nil); err != nil || sum.Ran != 0 || len(calls) != 0 {
		t.Errorf("a finished journal ran again: %+v %v %v", sum, calls, err)
	}
}

func TestJournalMalformedLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	os.WriteFile(path, []byte("{\"key\":\"a\",\"v\":0}\nnot json\n"), 0o644)
	if _, _, err := ReadJournal(path, "", newTestLine); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("want an error naming line 2, have %v", err)
	}
	os.WriteFile(path, []byte("{\"v\":1}\n"), 0o644)
	if _, _, err := ReadJournal(path, "", newTestLine); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("want an error about the missing key, have %v", err)
	}
	// A byte order mark before the first line (an editor's) is skipped;
	// one further on is a malformed line.
	os.WriteFile(path, []byte("\ufeff{\"key\":\"a\",\"v\":1}\n{\"key\":\"b\",\"v\":0}\n"), 0o644)
	if lines, _, err := ReadJournal(path, "", newTestLine); err != nil || len(lines) != 2 || lines[0].Key != "a" || lines[0].V != 1 {
		t.Errorf("a BOM before line 1: %v, %v", lines, err)
	}
	os.WriteFile(path, []byte("{\"key\":\"a\",\"v\":0}\n\ufeff{\"key\":\"b\",\"v\":0}\n"), 0o644)
	if _, _, err := ReadJournal(path, "", newTestLine); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a BOM before line 2: want an error naming line 2, have %v", err)
	}
	// A line without a result it always records (edited by hand) is
	// refused, naming it: the report read it as 0.
	os.WriteFile(path, []byte("{\"key\":\"a\",\"v\":1}\n{\"key\":\"b\",\"seconds\":2}\n"), 0o644)
	if _, _, err := ReadJournal(path, "", newTestLine); err == nil || !strings.Contains(err.Error(), `line 2 (b): no "v", which every run records`) {
		t.Errorf("a line without its result: %v", err)
	}
	// Nor with null for it (decoded as 0, helper-125); a result of the
	// wrong type names its field; a key in other case is the field, as
	// encoding/json reads it (helper-124).
	for body, want := range map[string]string{
		"{\"key\":\"a\",\"v\":null}\n":  `line 1 (a): "v" is null, which no run records`,
		"{\"key\":\"a\",\"v\":\"x\"}\n": `line 1: field "v": json: cannot unmarshal string`,
		"{\"key\":\"a\",\"V\":3}\n":     "",
		// encoding/json keeps a value at a later null of a name folding
		// alike, and folds ſ as s (helper-126).
		"{\"key\":\"a\",\"v\":3,\"V\":null}\n": "",
		"{\"key\":\"a\",\"V\":null,\"v\":3}\n": "",
	} {
		os.WriteFile(path, []byte(body), 0o644)
		lines, _, err := ReadJournal(path, "", newTestLine)
		var ie *InputError
		switch {
		case want == "" && (err != nil || len(lines) != 1 || lines[0].V != 3):
			t.Errorf("%q: %v, %v", body, lines, err)
		case want != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want an input error with %q", body, err, want)
		}
	}
}

func TestCoarsen(t *testing.T) {
	p := []float64{0.125, 0.25, 0.375, 0.25}
	if got := Coarsen(p, 1); !reflect.DeepEqual(got, []float64{0.375, 0.625}) {
		t.Errorf("Coarsen(p, 1) = %v", got)
	}
	if got := Coarsen(p, 2); !reflect.DeepEqual(got, p) {
		t.Errorf("Coarsen(p, 2) = %v", got)
	}
}

// Two processes on the same shard: a task another process recorded after
// this one read the journal is skipped, and a task both ran is recorded
// once (the second result is dropped).
func TestJournalSameShardTwice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	other := func(key string, v int) {
		l := &testLine{V: v}
		l.Experiment, l.Key = "test", key
		if _, err := appendLine(path, "", key, l); err != nil {
			t.Fatal(err)
		}
	}
	var calls []string
	tasks := testTasks(4, &calls)
	// While running i=0 the "other process" finishes i=1; while running
	// i=2 it also finishes i=2 itself.
	run0, run2 := tasks[0].Run, tasks[2].Run
	tasks[0].Run = func(ctx context.Context) (*testLine, error) { other("i=1", 100); return run0(ctx) }
	tasks[2].Run = func(ctx context.Context) (*testLine, error) { other("i=2", 200); return run2(ctx) }
	sum, err := RunTasks(context.Background(), "test", tasks, RunOptions{Out: dir}, newTestLine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"i=0", "i=2", "i=3"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("ran %v, want %v", calls, want)
	}
	if sum.Ran != 2 || sum.Skipped != 1 || sum.Dropped != 1 {
		t.Errorf("summary %+v: want 2 ran, 1 skipped (done by the other), 1 dropped (ran by both)", sum)
	}
	lines, _, err := ReadJournal(path, "test", newTestLine)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range lines {
		if _, dup := got[l.Key]; dup {
			t.Errorf("key %s recorded twice", l.Key)
		}
		got[l.Key] = l.V
	}
	if want := map[string]int{"i=0": 0, "i=1": 100, "i=2": 200, "i=3": 9}; !reflect.DeepEqual(got, want) {
		t.Errorf("journal %v, want %v", got, want)
	}
	// A key that is a prefix of another is not mistaken for it.
	if journalHasKey(path, "i=") || !journalHasKey(path, "i=3") {
		t.Error("journalHasKey matches a prefix or misses a key")
	}
}

// A line cut off mid-write for the first run still to do is redone on the
// first resume, not taken for done (its key is in the cut-off bytes).
func TestJournalPartialFirstTodo(t *testing.T) {
	dir := t.TempDir()
	var calls []string
	tasks := testTasks(4, &calls)
	if _, err := RunTasks(context.Background(), "test", tasks[:2], RunOptions{Out: dir}, newTestLine, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"experiment":"test","key":"i=2","v":`)
	f.Close()
	calls = nil
	sum, err := RunTasks(context.Background(), "test", testTasks(4, &calls), RunOptions{Out: dir}, newTestLine, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || !reflect.DeepEqual(calls, []string{"i=2", "i=3"}) {
		t.Errorf("resume after a cut-off line: %+v, calls %v", sum, calls)
	}
	if got := readKeys(t, dir); len(got) != 4 {
		t.Errorf("journal keys %v", got)
	}
}

// A journal line whose "seconds" is negative or not finite is refused (it
// printed as a negative run time), and run times beyond time.Duration's
// range print as seconds instead of wrapping around.
func TestJournalSeconds(t *testing.T) {
	path := filepath.Join(t.TempDir(), JournalFile)
	os.WriteFile(path, []byte(`{"experiment":"test","key":"a","seconds":-6000,"v":1}`+"\n"), 0o644)
	if _, _, err := ReadJournal(path, "test", newTestLine); err == nil || !strings.Contains(err.Error(), "seconds") {
		t.Errorf("negative seconds: %v", err)
	}
	if got := fmtDur(1e10); got != "1e+10 s" {
		t.Errorf("fmtDur(1e10) = %q", got)
	}
	if got := fmtDuration(1e12); got != "1e+12s" {
		t.Errorf("fmtDuration(1e12) = %q", got)
	}
	if got := fmtDur(3725); got != "1h2m5s" {
		t.Errorf("fmtDur(3725) = %q", got)
	}
}

// TestIsWriteErr: a figure or report that cannot be written (a read-only
// file in the way) is a write error, not one of the journal's.
func TestIsWriteErr(t *testing.T) {
	if !isWriteErr(fmt.Errorf("writing x.png: %w", outfile.ErrReadOnly)) || !isWriteErr(&os.PathError{Op: "open", Path: "x", Err: os.ErrPermission}) {
		t.Error("a write error not seen as one")
	}
	// A directory in the figure's place (it exited 2, as if the results
	// were bad, with the journal's name in front).
	dir := t.TempDir()
	png := filepath.Join(dir, "x.png")
	os.Mkdir(png, 0o755)
	err := outfile.WriteFile(context.Background(), png, func(io.Writer) error { return nil })
	if !isWriteErr(err) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory in the way: %v", err)
	}
	if isWriteErr(errors.New("no results")) {
		t.Error("another error seen as a write error")
	}
}

// TestSameResults: journal lines of one key are the same run when they
// differ only in times (at any depth) and the run's circumstances, and
// other results when anything else differs.
func TestSameResults(t *testing.T) {
	base := `{"key":"a","seconds":1.5,"started":"2026-01-01T00:00:00Z","host":"x","commit":"c1","scores":{"nll":1,"train_seconds":3},"sweep":{"trials":[{"seconds":2,"val_loss":0.5}]}}`
	for _, c := range []struct {
		other string
		same  bool
	}{
		{base, true},
		{`{"sweep":{"trials":[{"val_loss":0.5,"seconds":9}]},"scores":{"train_seconds":4,"nll":1.0},"commit":"c1","host":"y","started":"2026-02-01T00:00:00Z","seconds":7,"key":"a"}`, true},
		{`{"key":"a","seconds":1.5,"started":"2026-01-01T00:00:00Z","host":"x","commit":"c2","scores":{"nll":1,"train_seconds":3},"sweep":{"trials":[{"seconds":2,"val_loss":0.5}]}}`, false},
		{`{"key":"a","seconds":1.5,"commit":"c1","scores":{"nll":1.0000001,"train_seconds":3},"sweep":{"trials":[{"seconds":2,"val_loss":0.5}]}}`, false},
		{`{"key":"a","commit":"c1","scores":{"nll":1},"sweep":{"trials":[{"val_loss":0.5},{"val_loss":0.6}]}}`, false},
		{`{"key":"a","commit":"c1","scores":{"nll":1},"sweep":{"trials":[{"val_loss":0.5}]},"extra":true}`, false},
	} {
		if got := sameResults([]byte(base), []byte(c.other)); got != c.same {
			t.Errorf("%s: same %v, want %v", c.other, got, c.same)
		}
	}
}

// A journal saved without its last newline (by an editor, echo -n) keeps
// its last line when it is whole: read, resumed and merged into, where it
// was cut off before (a merge lost the run without a word).
func TestJournalWholeLastLineKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	var calls []string
	if _, err := RunTasks(context.Background(), "test", testTasks(3, &calls), RunOptions{Out: dir}, newTestLine, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.TrimSuffix(string(b), "\n")+"  "), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, partial, err := ReadJournal(path, "test", newTestLine); err != nil || partial || len(lines) != 3 {
		t.Fatalf("read: %d lines, partial %v, %v", len(lines), partial, err)
	}
	// One line after a byte order mark (an editor's), no newline: kept.
	bom := filepath.Join(t.TempDir(), JournalFile)
	first, _, _ := strings.Cut(string(b), "\n")
	os.WriteFile(bom, []byte("\ufeff"+first), 0o644)
	if lines, partial, err := ReadJournal(bom, "test", newTestLine); err != nil || partial || len(lines) != 1 {
		t.Errorf("a line after a BOM: %d lines, partial %v, %v", len(lines), partial, err)
	}
	if _, err := appendLine(bom, "", "i=9", &testLine{Meta: Meta{Experiment: "test", Key: "i=9"}}); err != nil {
		t.Fatal(err)
	}
	if lines, _, err := ReadJournal(bom, "test", newTestLine); err != nil || len(lines) != 2 {
		t.Errorf("appended to a line after a BOM: %d lines, %v", len(lines), err)
	}
	calls = nil
	if _, err := RunTasks(context.Background(), "test", testTasks(4, &calls), RunOptions{Out: dir}, newTestLine, nil); err != nil || len(calls) != 1 {
		t.Fatalf("resume: calls %v, %v", calls, err)
	}
	if got := readKeys(t, dir); len(got) != 4 {
		t.Errorf("after resuming: %v", got)
	}
	// Merged into: the destination's unterminated last line stays.
	src := t.TempDir()
	if _, err := RunTasks(context.Background(), "test", testTasks(6, &calls), RunOptions{Out: src}, newTestLine, nil); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	os.WriteFile(path, []byte(strings.TrimSuffix(string(b), "\n")), 0o644)
	sum, err := mergeJournals("test", dir, []string{src}, newTestLine)
	if err != nil || sum.Added != 2 {
		t.Fatalf("merge: %+v, %v", sum, err)
	}
	if got := readKeys(t, dir); len(got) != 6 {
		t.Errorf("after the merge: %v", got)
	}
	b, _ = os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 6 {
		t.Errorf("journal has %d newlines for 6 lines:\n%s", n, b)
	}
}

// A run on two lines with other results (shards joined twice, an edit) is
// read as its first line, and said so: by the runs, the report and a
// merge (which left the second out without a word).
func TestJournalRepeatedKeyDiffers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	body := `{"experiment":"test","key":"i=0","v":1}
{"experiment":"test","key":"i=1","v":2}
{"experiment":"test","key":"i=0","v":7}
{"experiment":"test","key":"i=1","v":2,"seconds":3}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := readJournal(path, "test", newTestLine)
	if err != nil || len(j.lines) != 2 || j.lines[0].V != 1 || !reflect.DeepEqual(j.differ, []string{"i=0"}) {
		t.Fatalf("read: %d lines, differ %v, %v", len(j.lines), j.differ, err)
	}
	var log strings.Builder
	var calls []string
	if _, err := RunTasks(context.Background(), "test", testTasks(2, &calls), RunOptions{Out: dir, Log: &log}, newTestLine, nil); err != nil || len(calls) != 0 {
		t.Fatalf("run: %v, %v", calls, err)
	}
	if !strings.Contains(log.String(), "1 run(s) appear on more than one line with different results (i=0); the runs take each one's first line") {
		t.Errorf("run's log: %q", log.String())
	}
	sum, err := mergeJournals("test", t.TempDir(), []string{dir}, newTestLine)
	if err != nil || sum.Added != 2 || !reflect.DeepEqual(sum.Differ, []string{"i=0"}) {
		t.Errorf("merge: %+v, %v", sum, err)
	}
}

// TestAppendOtherKindMeanwhile: runs of another kind (here full runs,
// where this run's are --quick) that another process began in the journal
// after this run checked it are not joined: the line is refused when it
// is appended (both processes ran everything and left the journal mixed).
func TestAppendOtherKindMeanwhile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, JournalFile)
	var calls []string
	tasks := testTasks(2, &calls)
	for i := range tasks {
		tasks[i].Key += quickSuffix
	}
	other := `{"experiment":"test","key":"i=5","v":1}` + "\n"
	log := writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("runs in the plan")) {
			if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
				t.Error(err)
			}
		}
		return len(p), nil
	})
	_, err := RunTasks(context.Background(), "test", tasks, RunOptions{Out: dir, Log: log}, newTestLine, nil)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `holds full runs (such as "i=5"), begun by another process meanwhile`) {
		t.Errorf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != other {
		t.Errorf("journal:\n%s", b)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestAppendOtherDataMeanwhile: runs on other files of a dataset (another
// --data) that another process added to the journal after this run
// checked it are not joined: the line is refused when it is appended.
func TestAppendOtherDataMeanwhile(t *testing.T) {
	data, dir := t.TempDir(), t.TempDir()
	writeDataset(t, data, "toy", 30, 1)
	path := filepath.Join(dir, JournalFile)
	var calls []string
	tasks := testTasks(1, &calls)
	tasks[0].Key = "dataset=toy,i=0"
	other := `{"experiment":"test","key":"dataset=toy,i=7","data":"0123456789abcdef","v":1}` + "\n"
	log := writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("runs in the plan")) {
			if err := os.WriteFile(path, []byte(other), 0o644); err != nil {
				t.Error(err)
			}
		}
		return len(p), nil
	})
	_, err := RunTasks(context.Background(), "test", tasks, RunOptions{Out: dir, Log: log, DataDir: data}, newTestLine, nil)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `holds runs of dataset toy made on other files (data 0123456789abcdef, such as "dataset=toy,i=7"), added by another process meanwhile`) {
		t.Errorf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != other {
		t.Errorf("journal:\n%s", b)
	}
	// The same files, or another dataset's: added.
	fp := DataFingerprint(data, "toy")
	for _, o := range []string{
		`{"experiment":"test","key":"dataset=toy,i=7","data":"` + fp + `","v":1}` + "\n",
		`{"experiment":"test","key":"dataset=other,i=7","data":"0123456789abcdef","v":1}` + "\n",
	} {
		if err := os.WriteFile(path, []byte(o), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := RunTasks(context.Background(), "test", tasks, RunOptions{Out: dir, DataDir: data}, newTestLine, nil); err != nil {
			t.Errorf("after %s: %v", o, err)
		}
	}
}

// foldName folds as encoding/json matches names: a struct field seen
// decodes from "ſeen" and "SEEN" (helper-126).
func TestFoldName(t *testing.T) {
	var v struct {
		Seen int `json:"seen"`
	}
	for _, k := range []string{"seen", "SEEN", "ſeen", "Seen"} {
		v.Seen = 0
		if err := json.Unmarshal([]byte(`{"`+k+`":5}`), &v); err != nil || v.Seen != 5 {
			t.Fatalf("encoding/json does not match %q to seen: the test's premise", k)
		}
		if foldName(k) != foldName("seen") {
			t.Errorf("foldName(%q) = %q, foldName(seen) = %q", k, foldName(k), foldName("seen"))
		}
	}
	if foldName("K") == foldName("x") {
		t.Error("fold too coarse")
	}
}
