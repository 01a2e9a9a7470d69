package hist

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sampleHistograms returns named histograms covering the encoding's cases.
func sampleHistograms() map[string]*Histogram {
	hs := map[string]*Histogram{}
	add := func(name string, vs ...int64) {
		h := New()
		for _, v := range vs {
			h.Record(v)
		}
		hs[name] = h
	}
	add("empty")
	add("zero", 0)
	add("one", 25_000)
	add("maxint", math.MaxInt64)
	add("overflow", 1000, MaxTracked, MaxTracked+1, math.MaxInt64)
	add("few", 1, 1, 2, 300, 300, 301, 70_000, 1_000_000_000)
	r := newRand(11)
	var vs []int64
	for range 20_000 {
		vs = append(vs, int64(r.ExpFloat64()*80_000))
	}
	add("exponential", vs...)
	return hs
}

func TestEncodingRoundTrip(t *testing.T) {
	for name, h := range sampleHistograms() {
		t.Run(name, func(t *testing.T) {
			b, err := h.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			// Decode into a histogram that already holds something.
			got := New()
			got.Record(999)
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatalf("decode own encoding: %v", err)
			}
			assertEqual(t, got, h)
			b2, _ := got.MarshalBinary()
			if !bytes.Equal(b, b2) {
				t.Errorf("re-encoding differs:\n%x\n%x", b, b2)
			}
			prefix := []byte("xyz")
			b3, _ := h.AppendBinary(prefix)
			if !bytes.HasPrefix(b3, prefix) || !bytes.Equal(b3[len(prefix):], b) {
				t.Errorf("AppendBinary = %x, want %x after the prefix", b3, b)
			}
		})
	}
	if b, _ := sampleHistograms()["exponential"].MarshalBinary(); len(b) > 3000 {
		t.Errorf("20000 exponential samples encode to %d bytes, want a compact encoding", len(b))
	}
}

func TestDecodeTruncated(t *testing.T) {
	for name, h := range sampleHistograms() {
		b, _ := h.MarshalBinary()
		for n := range len(b) {
			if err := New().UnmarshalBinary(b[:n]); err == nil {
				t.Errorf("%s: prefix of %d/%d bytes decoded without error", name, n, len(b))
			}
		}
	}
}

// enc builds an encoding: the version byte, then each field as a uvarint.
func enc(fields ...uint64) []byte {
	b := []byte{encodingVersion}
	for _, f := range fields {
		b = binary.AppendUvarint(b, f)
	}
	return b
}

// malformed lists broken encodings with a word the error must contain.
func malformed() []struct {
	name, want string
	data       []byte
} {
	// A valid base: samples 100 and 300 (buckets 100 and 278).
	i300 := uint64(bucketIndex(300))
	valid := enc(2, 100, 300, 400, 0, 100*100+300*300, 0, 0, 2, 100, 1, i300-101, 1)
	big1 := uint64(1 << 40)
	ib := uint64(bucketIndex(big1))
	return []struct {
		name, want string
		data       []byte
	}{
		{"empty input", "empty", nil},
		{"bad version", "version", append([]byte{2}, valid[1:]...)},
		{"trailing byte", "trailing", append(append([]byte{}, valid...), 0)},
		{"empty with trailing", "trailing", enc(0, 0)},
		{"non-minimal varint", "minimal", []byte{encodingVersion, 0x80, 0x00}},
		{"overlong varint", "overflows", append([]byte{encodingVersion}, bytes.Repeat([]byte{0xff}, 11)...)},
		{"count without moments", "truncated", enc(1 << 63)},
		{"max above int64", "int64", enc(1, 1<<63, 1<<63, 0, 0, 0, 0, 0, 1, 0, 1)},
		{"min above max", "min", enc(2, 300, 100, 400, 0, 100000, 0, 0, 2, 100, 1, i300-101, 1)},
		{"one sample with min below max", "one sample", enc(1, 100, 101, 100, 0, 10000, 0, 0, 1, 100, 1)},
		{"no buckets", "non-empty buckets", enc(2, 100, 300, 400, 0, 100000, 0, 0, 0)},
		{"more buckets than samples", "non-empty buckets", enc(2, 100, 300, 400, 0, 100000, 0, 0, 3, 100, 1, 1, 1, 1, 1)},
		{"absurd bucket count", "non-empty buckets", enc(1<<40, 100, 300, 400, 0, 100000, 0, 0, 1<<40)},
		{"buckets beyond the input", "truncated", enc(5000, 100, 300, 400, 0, 100000, 0, 0, 4000, 100, 5000)},
		{"bucket gap 9000", "bucket index gap 9000 out of range", enc(2, 100, 300, 400, 0, 100000, 0, 0, 2, 9000, 1, 0, 1)},
		{"bucket index past the end", "out of range", enc(2, 100, 300, 400, 0, 100000, 0, 0, 2, 4000, 1, 4000, 1)},
		{"empty bucket", "empty", enc(2, 100, 300, 400, 0, 100000, 0, 0, 2, 100, 0, i300-101, 2)},
		{"counts short of count", "add up", enc(3, 100, 300, 400, 0, 100000, 0, 0, 2, 100, 1, i300-101, 1)},
		{"counts beyond count", "exceed", enc(2, 100, 300, 400, 0, 100000, 0, 0, 2, 100, 1, i300-101, 2)},
		{"min not in first bucket", "min", enc(2, 99, 300, 399, 0, 99*99+300*300, 0, 0, 2, 100, 1, i300-101, 1)},
		{"max not in last bucket", "max", enc(2, 100, 310, 410, 0, 100*100+310*310, 0, 0, 2, 100, 1, i300-101, 1)},
		{"sum too large", "sum", enc(2, 100, 300, 402, 0, 100*100+300*300, 0, 0, 2, 100, 1, i300-101, 1)},
		{"sum too small", "sum", enc(2, 100, 300, 399, 0, 100*100+300*300, 0, 0, 2, 100, 1, i300-101, 1)},
		{"sum of squares too large", "squares", enc(2, 100, 300, 400, 0, 1<<62, 0, 0, 2, 100, 1, i300-101, 1)},
		{"sum of squares beyond 128 bits", "squares", enc(2, 100, 300, 400, 0, 100000, 0, 1, 2, 100, 1, i300-101, 1)},
		{"negative variance", "negative variance", func() []byte {
			// Two samples in one wide bucket: sum at the top, squares at
			// the bottom of what the bucket allows.
			lo, hi := big1, big1+100
			sqHi, sqLo := square(lo)[1], square(lo)[0]
			return enc(2, lo, hi, 2*hi, 0, 2*sqLo, 2*sqHi, 0, 1, ib, 2)
		}()},
		{"valid", "", valid},
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, tt := range malformed() {
		t.Run(tt.name, func(t *testing.T) {
			h := New()
			h.Record(777)
			before := *h
			err := h.UnmarshalBinary(tt.data)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("valid input rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %x without error", tt.data)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "hist: decode: ") {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if !h.Equal(&before) {
				t.Error("failed decode changed the receiver")
			}
		})
	}
}

func TestDecodeAllocs(t *testing.T) {
	b, _ := sampleHistograms()["exponential"].MarshalBinary()
	h := New()
	allocs := testing.AllocsPerRun(100, func() {
		if err := h.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("UnmarshalBinary allocates %v times, want a small constant", allocs)
	}
}

// checkDecoded asserts what must hold for anything UnmarshalBinary accepts:
// the encoding is canonical, a second decode is identical, and the reported
// figures are finite and ordered.
func checkDecoded(t *testing.T, data []byte, h *Histogram) {
	t.Helper()
	b, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, data) {
		t.Fatalf("re-encoding differs from accepted input:\n%x\n%x", b, data)
	}
	h2 := New()
	if err := h2.UnmarshalBinary(b); err != nil {
		t.Fatalf("re-encoding rejected: %v", err)
	}
	if !h2.Equal(h) {
		t.Fatal("re-decoded histogram differs")
	}
	s := h.Summary()
	for _, f := range []float64{s.Min, s.Mean, s.Stddev, s.P50, s.P90, s.P99, s.P999, s.Max} {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			t.Fatalf("decoded histogram has a bad summary: %+v", s)
		}
	}
	if !(s.Min <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P99 && s.P99 <= s.P999 && s.P999 <= s.Max) ||
		s.Mean < s.Min || s.Mean > s.Max {
		t.Fatalf("decoded histogram's summary is out of order: %+v", s)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, h := range sampleHistograms() {
		b, _ := h.MarshalBinary()
		f.Add(b)
	}
	for _, m := range malformed() {
		f.Add(m.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := New()
		if err := h.UnmarshalBinary(data); err != nil {
			return
		}
		checkDecoded(t, data, h)
		// Merging a decoded histogram must keep it decodable.
		m := New()
		if err := m.Merge(h); err != nil {
			t.Fatal(err)
		}
		if err := m.Merge(h); err != nil {
			return // count overflow is reported, not wrapped
		}
		b, _ := m.MarshalBinary()
		if err := New().UnmarshalBinary(b); err != nil {
			t.Fatalf("merged decoded histogram does not decode: %v", err)
		}
	})
}

// corpusDir holds the committed seed corpus of FuzzUnmarshal. Files named
// valid-* must decode, bad-* must not.
const corpusDir = "testdata/fuzz/FuzzUnmarshal"

// TestSeedCorpus checks the committed corpus; with HIST_WRITE_CORPUS=1 it
// first (re)writes it from sampleHistograms and malformed.
func TestSeedCorpus(t *testing.T) {
	if os.Getenv("HIST_WRITE_CORPUS") == "1" {
		writeCorpus(t)
	}
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var valid, bad int
	for _, e := range entries {
		data, err := readCorpusFile(filepath.Join(corpusDir, e.Name()))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		h := New()
		err = h.UnmarshalBinary(data)
		switch {
		case strings.HasPrefix(e.Name(), "valid-"):
			valid++
			if err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			} else {
				checkDecoded(t, data, h)
			}
		case strings.HasPrefix(e.Name(), "bad-"):
			bad++
			if err == nil {
				t.Errorf("%s decoded without error", e.Name())
			}
		}
	}
	if valid < 3 || bad < 10 {
		t.Errorf("corpus has %d valid and %d bad seeds, want ≥ 3 and ≥ 10", valid, bad)
	}
}

// readCorpusFile parses a "go test fuzz v1" file holding one []byte.
func readCorpusFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a one-value go test fuzz v1 file")
	}
	arg, ok := strings.CutPrefix(lines[1], "[]byte(")
	if !ok || !strings.HasSuffix(arg, ")") {
		return nil, fmt.Errorf("value is not a []byte: %q", lines[1])
	}
	s, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
	return []byte(s), err
}

// writeCorpus writes the seed corpus files.
func writeCorpus(t *testing.T) {
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%+q)\n", data)
		if err := os.WriteFile(filepath.Join(corpusDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, h := range sampleHistograms() {
		if name == "exponential" {
			continue // large; the fuzzer's f.Add covers it
		}
		b, _ := h.MarshalBinary()
		write("valid-"+name, b)
	}
	for _, m := range malformed() {
		if m.want == "" {
			write("valid-base", m.data)
			continue
		}
		write("bad-"+strings.ReplaceAll(m.name, " ", "-"), m.data)
	}
}
