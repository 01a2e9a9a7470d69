package output

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"sort"
	"strings"

	"go.starlark.net/starlark"

	"netscript/starlib/module"
	"netscript/starlib/values"
)

// MailWidth is the width Table keeps to, so a table pasted into a mail
// is not wrapped.
const MailWidth = module.MailWidth

// Table lays rows out in netperf's human style: a header of up to three
// lines (name, second word, units), fixed-width columns, numbers
// right-aligned. Columns that do not fit MailWidth go into a further block
// below, which repeats the first column. The text has no final newline.
func Table(rows []starlark.Value, fields []string) (string, error) {
	if len(fields) == 0 {
		return "", nil
	}
	cells, err := outGrid(rows, fields, "-")
	if err != nil {
		return "", err
	}
	notes := markFailed(rows, cells)
	cols := make([]tableColumn, len(fields))
	for j, f := range fields {
		c := tableColumn{head: tableHeader(f, rows), numeric: true}
		for _, h := range c.head {
			c.width = max(c.width, len(h))
		}
		for i := range rows {
			c.width = max(c.width, len(cells[i][j].text))
			if !cells[i][j].number && !cells[i][j].none {
				c.numeric = false
			}
		}
		cols[j] = c
	}
	var b strings.Builder
	for k, block := range tableBlocks(cols) {
		if k > 0 {
			b.WriteString("\n\n")
		}
		writeTableBlock(&b, cols, block, cells)
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n"))
	}
	return b.String(), nil
}

// failedText is the cell of a figure a failed test did not measure.
const failedText = "failed"

// markFailed shows the unmeasured cells of failed tests' rows as failed,
// not as "-", and returns the lines that say why each failed, for below
// the table.
func markFailed(rows []starlark.Value, cells [][]outCell) []string {
	var notes []string
	for i, r := range rows {
		msg := rowError(r)
		if msg == "" {
			continue
		}
		for j := range cells[i] {
			if cells[i][j].none {
				cells[i][j].text = failedText
			}
		}
		notes = append(notes, fmt.Sprintf("row %d failed: %s", i+1, msg))
	}
	return notes
}

// rowError is the error of a row that is a failed test's result, "" for
// any other row.
func rowError(row starlark.Value) string {
	v, err := values.Field(row, "error")
	if err != nil {
		return ""
	}
	s, _ := starlark.AsString(v)
	return s
}

// withError adds the error column to fields when a row failed and fields
// leave it out, so csv() and kv() never show a failed test as a row of
// empty figures alone.
func withError(rows []starlark.Value, fields []string) []string {
	for _, f := range fields {
		if f == "error" {
			return fields
		}
	}
	for _, r := range rows {
		if rowError(r) != "" {
			return append(fields[:len(fields):len(fields)], "error")
		}
	}
	return fields
}

type tableColumn struct {
	head    [3]string
	width   int
	numeric bool
}

// columnGap separates table columns.
const columnGap = "  "

// tableBlocks splits column indexes into groups that each fit MailWidth; every
// group after the first starts with column 0 again.
func tableBlocks(cols []tableColumn) [][]int {
	var out [][]int
	cur, width := []int{0}, cols[0].width
	for j := 1; j < len(cols); j++ {
		w := len(columnGap) + cols[j].width
		if width+w > MailWidth && len(cur) > 1 {
			out = append(out, cur)
			cur, width = []int{0}, cols[0].width
		}
		cur = append(cur, j)
		width += w
	}
	return append(out, cur)
}

func writeTableBlock(b *strings.Builder, cols []tableColumn, block []int, cells [][]outCell) {
	var lines []string
	for h := 0; h < 3; h++ {
		var parts []string
		empty := true
		for _, j := range block {
			if cols[j].head[h] != "" {
				empty = false
			}
			parts = append(parts, padCell(cols[j].head[h], cols[j].width, cols[j].numeric))
		}
		if !empty {
			lines = append(lines, strings.TrimRight(strings.Join(parts, columnGap), " "))
		}
	}
	for i := range cells {
		var parts []string
		for _, j := range block {
			parts = append(parts, padCell(cells[i][j].text, cols[j].width, cols[j].numeric))
		}
		lines = append(lines, strings.TrimRight(strings.Join(parts, columnGap), " "))
	}
	b.WriteString(strings.Join(lines, "\n"))
}

func padCell(s string, width int, right bool) string {
	if len(s) >= width {
		return s
	}
	if right {
		return strings.Repeat(" ", width-len(s)) + s
	}
	return s + strings.Repeat(" ", width-len(s))
}

// CSV lays rows out as netperf's -o does: one header line of field names,
// then one line per row. The text has no final newline.
func CSV(rows []starlark.Value, fields []string) (string, error) {
	return CSVRows(rows, fields, true)
}

// CSVRows is CSV, with the header line only when header is true (netperf's
// -P 0 leaves it out). Fields may be netperf's selector names, which then
// head their columns as netperf names them.
func CSVRows(rows []starlark.Value, fields []string, header bool) (string, error) {
	if len(fields) == 0 {
		return "", nil
	}
	fields = withError(rows, fields)
	paths, names := columns(rows, fields)
	cells, err := outGrid(rows, paths, "")
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if header {
		w.Write(names)
	}
	for _, row := range cells {
		rec := make([]string, len(row))
		for j, c := range row {
			rec[j] = c.text
		}
		w.Write(rec)
	}
	w.Flush()
	return strings.TrimRight(buf.String(), "\n"), w.Error()
}

// KV lays one row out as netperf's -k does: NAME=value lines, the name in
// capitals with dots as underscores (latency.p99 is LATENCY_P99; a netperf
// selector such as p99_latency keeps netperf's name, P99_LATENCY), strings
// double-quoted so a shell can source the text. No final newline.
func KV(row starlark.Value, fields []string) (string, error) {
	fields = withError([]starlark.Value{row}, fields)
	paths, names := columns([]starlark.Value{row}, fields)
	cells, err := outGrid([]starlark.Value{row}, paths, "")
	if err != nil {
		return "", err
	}
	lines := make([]string, len(fields))
	for j, f := range names {
		c := cells[0][j]
		v := c.text
		if c.quoted {
			v = kvQuote(v)
		}
		lines[j] = strings.ToUpper(strings.ReplaceAll(f, ".", "_")) + "=" + v
	}
	return strings.Join(lines, "\n"), nil
}

// kvQuote double-quotes s, escaping what a POSIX shell expands inside
// double quotes.
func kvQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// outCell is one formatted value.
type outCell struct {
	text   string
	number bool // right-aligned
	quoted bool // text (strings, dicts, lists): kv() quotes it
	none   bool // not measured
}

// outGrid formats fields of every row; none is the text of a value that
// was not measured.
func outGrid(rows []starlark.Value, fields []string, none string) ([][]outCell, error) {
	out := make([][]outCell, len(rows))
	for i, r := range rows {
		out[i] = make([]outCell, len(fields))
		for j, f := range fields {
			v, err := columnValue(r, f)
			if err != nil {
				return nil, err
			}
			c, err := outFormat(f, v, none)
			if err != nil {
				return nil, err
			}
			out[i][j] = c
		}
	}
	return out, nil
}

// outLookup is Field, except that what was not measured is None rather
// than an error: a key missing from a dict (errors.timeout of a result that
// had none), or a field under one that is None (fastopen.accepted of a
// test run without fastopen).
func outLookup(row starlark.Value, path string) (starlark.Value, error) {
	v, err := values.Field(row, path)
	if err == nil {
		return v, nil
	}
	for i := strings.Index(path, "."); i > 0; {
		parent, perr := values.Field(row, path[:i])
		if perr != nil {
			break
		}
		switch parent.(type) {
		case starlark.NoneType:
			return starlark.None, nil
		case *starlark.Dict:
			if !strings.Contains(path[i+1:], ".") {
				return starlark.None, nil
			}
		}
		j := strings.Index(path[i+1:], ".")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil, err
}

// format renders one value of field.
func outFormat(field string, v starlark.Value, none string) (outCell, error) {
	switch x := v.(type) {
	case starlark.NoneType:
		return outCell{text: none, none: true}, nil
	case starlark.Int:
		return outCell{text: x.String(), number: true}, nil
	case starlark.Float:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return outCell{text: none, none: true}, nil
		}
		return outCell{text: values.FloatText(field, f), number: true}, nil
	case starlark.String:
		return outCell{text: string(x), quoted: true}, nil
	case starlark.Bool:
		return outCell{text: x.String()}, nil
	case *starlark.Dict:
		var parts []string
		for _, kv := range x.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				k = kv[0].String()
			}
			c, err := outFormat(field+"."+k, kv[1], none)
			if err != nil {
				return outCell{}, err
			}
			parts = append(parts, k+"="+c.text)
		}
		sort.Strings(parts)
		return outCell{text: strings.Join(parts, " "), quoted: true}, nil
	case *starlark.List:
		if x.Len() > 0 {
			if _, ok := x.Index(0).(starlark.HasAttrs); ok {
				// A list of records (result.flows): its length; a table
				// of them is table(r.flows).
				return outCell{text: fmt.Sprint(x.Len()), number: true}, nil
			}
		}
		var parts []string
		for i := 0; i < x.Len(); i++ {
			c, err := outFormat(field, x.Index(i), none)
			if err != nil {
				return outCell{}, err
			}
			parts = append(parts, c.text)
		}
		return outCell{text: strings.Join(parts, " "), quoted: true}, nil
	case starlark.HasAttrs:
		names := values.FieldNames(x)
		example := field
		if len(names) > 0 {
			example = field + "." + names[0]
		}
		return outCell{}, fmt.Errorf("field %s is a %s with fields %s; name one, such as %s",
			field, x.Type(), strings.Join(names, ", "), example)
	}
	return outCell{text: v.String()}, nil
}
