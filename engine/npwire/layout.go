package npwire

// walker reads a layout from a message or writes it into one, field by
// field in the order of netperf's C structure, so each layout is written
// once for both directions.
type walker struct {
	m   *Message
	i   int  // next word
	enc bool // writing into m
}

func (w *walker) u32(p *uint32) {
	if w.enc {
		w.m.SetWord(w.i, *p)
	} else {
		*p = w.m.Word(w.i)
	}
	w.i++
}

func (w *walker) i32(p *int32) {
	v := uint32(*p)
	w.u32(&v)
	*p = int32(v)
}

func (w *walker) f32(p *float32) {
	if w.enc {
		w.m.SetFloat(w.i, *p)
	} else {
		*p = w.m.Float(w.i)
	}
	w.i++
}

// u64 is a count sent as two words, high then low.
func (w *walker) u64(p *uint64) {
	hi, lo := uint32(*p>>32), uint32(*p)
	w.u32(&hi)
	w.u32(&lo)
	*p = uint64(hi)<<32 | uint64(lo)
}

// str is a character array of n bytes at byte offset *off (advanced), after
// the converted words.
func (w *walker) str(p *string, off *int, n int) {
	if w.enc {
		w.m.SetString(*off, n, *p)
	} else {
		*p = w.m.String(*off, n)
	}
	*off += n
}

// layout is a structure that travels in a message body.
type layout interface{ walk(w *walker) }

func encode(t, word2 int32, l layout) *Message {
	m := &Message{Type: t, Word2: word2}
	l.walk(&walker{m: m, enc: true})
	return m
}

func decode(m *Message, l layout) { l.walk(&walker{m: m}) }
