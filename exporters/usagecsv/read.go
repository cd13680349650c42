package usagecsv

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/internal/readback"
)

// ErrParse marks a part of the file that could not be read: the header, or
// one row.
var ErrParse = errors.New("usagecsv: malformed file")

// Index returns the position in columns of the column named name, or -1.
func Index(name string) int {
	return slices.IndexFunc(columns, func(c Column) bool { return c.Name == name })
}

// Decoder reads the file back, through the same column table the Writer
// writes it with: fields are found by their column's name in the header,
// so a file with columns added later, or one from an older version with
// fewer, still reads (a column the file lacks is absent in every row).
type Decoder struct {
	cr     *csv.Reader
	field  []int // by position in columns: the field in the file, -1 when absent
	fields int   // fields in the header
	line   int   // of the last record read, counting records as lines
	rec    []string
	time   time.Time
}

// NewDecoder reads the header from r. A header that cannot be read, or
// one without time_utc, is an error wrapping ErrParse. A byte order mark
// before the header (the file saved again by a spreadsheet as UTF-8 CSV)
// is passed over.
func NewDecoder(r io.Reader) (*Decoder, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s header: %v", ErrParse, FileName, err)
	}
	d := &Decoder{cr: cr, field: make([]int, len(columns)), fields: len(header), line: 1}
	for i := range d.field {
		d.field[i] = -1
	}
	for f, h := range header {
		if f == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		if i := Index(h); i >= 0 && d.field[i] < 0 {
			d.field[i] = f
		}
	}
	if d.field[0] < 0 {
		return nil, fmt.Errorf("%w: %s has no column %s", ErrParse, FileName, columns[0].Name)
	}
	return d, nil
}

// Next reads the next row; its fields are read with Time, Text and Number
// until the next call. It returns io.EOF at the end. A row that cannot be
// read (a torn last line, fewer fields than the header, a bad time) is an
// error wrapping ErrParse that names its line; reading may go on past it.
func (d *Decoder) Next() error {
	rec, err := d.cr.Read()
	if err == io.EOF {
		return err
	}
	d.line++
	if err == nil && len(rec) < d.fields {
		err = fmt.Errorf("%d fields, want %d", len(rec), d.fields)
	}
	if err == nil {
		d.time, err = time.Parse(time.RFC3339Nano, rec[d.field[0]])
	}
	if err != nil {
		d.rec = nil
		return fmt.Errorf("%w: %s line %d: %v", ErrParse, FileName, d.line, err)
	}
	d.rec = rec
	return nil
}

// Time is the row's time_utc, in UTC.
func (d *Decoder) Time() time.Time { return d.time.UTC() }

// Text is the field of columns[col] as written; "" when the file lacks the
// column (or col is -1, the Index of no column).
func (d *Decoder) Text(col int) string {
	if col < 0 || col >= len(d.field) || d.rec == nil {
		return ""
	}
	if f := d.field[col]; f >= 0 {
		return d.rec[f]
	}
	return ""
}

// Number is the figure in the field of columns[col]: absent (ok false)
// when the cell is empty or the file lacks the column, and an error
// wrapping ErrParse when the cell is no figure by readback's rule, a
// finite number from 0 to readback.MaxFigure (no column holds one
// outside it: a counter's change is never negative).
func (d *Decoder) Number(col int) (v float64, ok bool, err error) {
	s := d.Text(col)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
	case math.IsNaN(v) || math.IsInf(v, 0):
		err = fmt.Errorf("%s is not a finite number", s)
	case !readback.Figure(v):
		err = fmt.Errorf("%s is out of range (from 0 to %g)", s, float64(readback.MaxFigure))
	}
	if err != nil {
		return 0, false, fmt.Errorf("%w: %s line %d: %s: %v", ErrParse, FileName, d.line, columns[col].Name, err)
	}
	return v, true, nil
}
