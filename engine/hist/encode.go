package hist

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// encodingVersion is the first byte of every encoding.
const encodingVersion = 1

// The encoding (version 1) is a sequence of unsigned varints
// (encoding/binary's, always in their shortest form) after a version byte:
//
//	version   1 byte, = 1
//	count     number of samples; when 0 the encoding ends here
//	min, max  exact extremes in nanoseconds
//	sum       2 words, little-endian: Σv as a 128-bit integer
//	sumSq     3 words, little-endian: Σv² as a 192-bit integer
//	buckets   number of non-empty buckets, then for each in ascending
//	          order: the gap to the previous one (the index itself for the
//	          first, index−previous−1 after that) and its count (≥ 1)
//
// Because every varint must be minimal and the buckets are listed in a fixed
// order, each histogram has exactly one encoding.

// MarshalBinary encodes h compactly (sparse buckets, varints) for the
// control protocol and saved records; UnmarshalBinary reverses it. It
// implements encoding.BinaryMarshaler and never fails.
func (h *Histogram) MarshalBinary() ([]byte, error) {
	return h.AppendBinary(make([]byte, 0, 64))
}

// AppendBinary appends the encoding of h (see MarshalBinary) to b and
// returns the extended slice. It implements encoding.BinaryAppender and
// never fails.
func (h *Histogram) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, encodingVersion)
	b = binary.AppendUvarint(b, h.count)
	if h.count == 0 {
		return b, nil
	}
	b = binary.AppendUvarint(b, uint64(h.Min()))
	b = binary.AppendUvarint(b, h.max)
	for _, w := range h.sum {
		b = binary.AppendUvarint(b, w)
	}
	for _, w := range h.sumSq {
		b = binary.AppendUvarint(b, w)
	}
	first, last := bucketIndex(uint64(h.Min())), bucketIndex(h.max)
	nb := uint64(0)
	for _, c := range h.counts[first : last+1] {
		if c != 0 {
			nb++
		}
	}
	b = binary.AppendUvarint(b, nb)
	prev := -1
	for i := first; i <= last; i++ {
		if c := h.counts[i]; c != 0 {
			b = binary.AppendUvarint(b, uint64(i-prev-1))
			b = binary.AppendUvarint(b, c)
			prev = i
		}
	}
	return b, nil
}

// UnmarshalBinary replaces h with the histogram encoded in data, which may
// come from an untrusted peer. It implements encoding.BinaryUnmarshaler.
//
// Anything but a well-formed encoding is an error: an unknown version,
// truncated input, trailing bytes, a non-minimal or overlong varint, more
// non-empty buckets than exist or than there are samples or bytes left, a
// bucket index out of range, an empty bucket,
// bucket counts that do not add up to the count, min or max outside the
// first or last non-empty bucket, or moments (sum, sum of squares) that no
// set of samples in those buckets could have. On error h is unchanged.
// Decoding never allocates in proportion to the input.
func (h *Histogram) UnmarshalBinary(data []byte) error {
	if err := decode(data, nil); err != nil {
		return err
	}
	return decode(data, h) // cannot fail: the same bytes just passed
}

// reader reads minimal unsigned varints from b, remembering the first error.
type reader struct {
	b   []byte
	off int
	err error
}

// uvarint reads one varint; what names the field for error messages.
func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	start := r.off
	var x uint64
	for i := 0; ; i++ {
		if r.off >= len(r.b) {
			r.err = fmt.Errorf("hist: decode: truncated input reading %s at byte %d", what, start)
			return 0
		}
		c := r.b[r.off]
		r.off++
		if i == binary.MaxVarintLen64-1 && c > 1 {
			r.err = fmt.Errorf("hist: decode: %s at byte %d overflows 64 bits", what, start)
			return 0
		}
		if c < 0x80 {
			if i > 0 && c == 0 {
				r.err = fmt.Errorf("hist: decode: %s at byte %d is not minimally encoded", what, start)
				return 0
			}
			return x | uint64(c)<<(7*i)
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
}

// decode validates data completely and, if dst is not nil, stores the
// result in dst. With dst nil it writes nothing, so a caller can validate
// first and then decode into the real destination knowing it succeeds.
func decode(data []byte, dst *Histogram) error {
	if len(data) == 0 {
		return fmt.Errorf("hist: decode: empty input")
	}
	if data[0] != encodingVersion {
		return fmt.Errorf("hist: decode: unknown encoding version %d (want %d)", data[0], encodingVersion)
	}
	r := &reader{b: data, off: 1}
	count := r.uvarint("count")
	if r.err != nil {
		return r.err
	}
	if count == 0 {
		if r.off != len(data) {
			return fmt.Errorf("hist: decode: %d trailing bytes after empty histogram", len(data)-r.off)
		}
		if dst != nil {
			dst.Reset()
		}
		return nil
	}
	minV := r.uvarint("min")
	maxV := r.uvarint("max")
	var sum [2]uint64
	var sumSq [3]uint64
	for i := range sum {
		sum[i] = r.uvarint("sum")
	}
	for i := range sumSq {
		sumSq[i] = r.uvarint("sum of squares")
	}
	nb := r.uvarint("bucket count")
	if r.err != nil {
		return r.err
	}
	switch {
	case maxV > math.MaxInt64:
		return fmt.Errorf("hist: decode: max %d exceeds the int64 range", maxV)
	case minV > maxV:
		return fmt.Errorf("hist: decode: min %d above max %d", minV, maxV)
	case count == 1 && minV != maxV:
		return fmt.Errorf("hist: decode: one sample but min %d differs from max %d", minV, maxV)
	case nb == 0 || nb > numBuckets || nb > count:
		return fmt.Errorf("hist: decode: %d non-empty buckets is out of range for %d samples and %d buckets", nb, count, numBuckets)
	case nb > uint64(len(data)-r.off)/2: // each bucket takes at least 2 bytes
		return fmt.Errorf("hist: decode: truncated input: %d buckets announced but only %d bytes left", nb, len(data)-r.off)
	}
	if dst != nil {
		dst.Reset()
		dst.count, dst.minInv, dst.max = count, ^minV, maxV
		dst.sum, dst.sumSq = sum, sumSq
	}

	// Bounds on the moments implied by the buckets, each bucket's range
	// clipped to [min, max]: lowSum ≤ Σv ≤ highSum and likewise for Σv².
	var lowSum, highSum, lowSq, highSq [3]uint64
	var total uint64
	prev, first := -1, -1
	for k := uint64(0); k < nb; k++ {
		gap := r.uvarint("bucket index")
		c := r.uvarint("bucket count")
		if r.err != nil {
			return r.err
		}
		if gap >= numBuckets {
			return fmt.Errorf("hist: decode: bucket index gap %d out of range (have %d buckets)", gap, numBuckets)
		}
		i := prev + 1 + int(gap)
		if i >= numBuckets {
			return fmt.Errorf("hist: decode: bucket index %d out of range (have %d buckets)", i, numBuckets)
		}
		if c == 0 {
			return fmt.Errorf("hist: decode: bucket %d is listed but empty", i)
		}
		if c > count-total {
			return fmt.Errorf("hist: decode: bucket counts exceed the count %d", count)
		}
		total += c
		if first < 0 {
			first = i
		}
		prev = i
		lo, hi := bucketBounds(i)
		lo, hi = max(lo, minV), min(hi, maxV)
		mulAdd(&lowSum, [2]uint64{lo, 0}, c)
		mulAdd(&highSum, [2]uint64{hi, 0}, c)
		mulAdd(&lowSq, square(lo), c)
		mulAdd(&highSq, square(hi), c)
		if dst != nil {
			dst.counts[i] = c
		}
	}
	if r.off != len(data) {
		return fmt.Errorf("hist: decode: %d trailing bytes", len(data)-r.off)
	}
	if total != count {
		return fmt.Errorf("hist: decode: bucket counts add up to %d, not the count %d", total, count)
	}
	if want := bucketIndex(minV); first != want {
		return fmt.Errorf("hist: decode: min %d belongs in bucket %d but the first non-empty bucket is %d", minV, want, first)
	}
	if want := bucketIndex(maxV); prev != want {
		return fmt.Errorf("hist: decode: max %d belongs in bucket %d but the last non-empty bucket is %d", maxV, want, prev)
	}
	sum3 := [3]uint64{sum[0], sum[1], 0}
	if cmp192(sum3, lowSum) < 0 || cmp192(sum3, highSum) > 0 {
		return fmt.Errorf("hist: decode: sum %v is impossible for the samples in the buckets", bigFromWords(sum[:]))
	}
	if cmp192(sumSq, lowSq) < 0 || cmp192(sumSq, highSq) > 0 {
		return fmt.Errorf("hist: decode: sum of squares %v is impossible for the samples in the buckets", bigFromWords(sumSq[:]))
	}
	// Cauchy–Schwarz: n·Σv² ≥ (Σv)², else the variance would be negative.
	s := bigFromWords(sum[:])
	lhs := new(big.Int).Mul(new(big.Int).SetUint64(count), bigFromWords(sumSq[:]))
	if lhs.Cmp(s.Mul(s, s)) < 0 {
		return fmt.Errorf("hist: decode: sum and sum of squares imply a negative variance")
	}
	return nil
}

// square returns v² as a 128-bit integer (little-endian words).
func square(v uint64) [2]uint64 {
	hi, lo := bits.Mul64(v, v)
	return [2]uint64{lo, hi}
}

// mulAdd adds a·c to acc. a·c fits 192 bits always; the callers keep the
// sum below 2^192 (fewer than 2^64 samples of squares below 2^126).
func mulAdd(acc *[3]uint64, a [2]uint64, c uint64) {
	h0, l0 := bits.Mul64(a[0], c)
	h1, l1 := bits.Mul64(a[1], c)
	w1, carry := bits.Add64(h0, l1, 0)
	w2 := h1 + carry
	var k uint64
	acc[0], k = bits.Add64(acc[0], l0, 0)
	acc[1], k = bits.Add64(acc[1], w1, k)
	acc[2], _ = bits.Add64(acc[2], w2, k)
}

// cmp192 compares two 192-bit integers (little-endian words) and returns
// −1, 0 or +1.
func cmp192(a, b [3]uint64) int {
	for i := 2; i >= 0; i-- {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
	}
	return 0
}
