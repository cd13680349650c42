package runmodel

import (
	"errors"
	"io"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
)

// rowDecoder reads Rows through usagecsv's column table, from the file or
// from the Writer's Tee.
type rowDecoder struct {
	dec *usagecsv.Decoder
	col [numCols]int // position in usagecsv's columns
}

func newRowDecoder(r io.Reader) (*rowDecoder, error) {
	dec, err := usagecsv.NewDecoder(r)
	if err != nil {
		return nil, err
	}
	d := &rowDecoder{dec: dec}
	for c := range numCols {
		d.col[c] = usagecsv.Index(c.Name())
	}
	return d, nil
}

// next reads the next row. It returns io.EOF at the end; a row that could
// not be read is reported in err with ok false, and a figure that could
// not be read is reported in err with the row, the figure absent.
func (d *rowDecoder) next() (row Row, ok bool, err error) {
	if err := d.dec.Next(); err != nil {
		return Row{}, false, err
	}
	row = Row{Time: d.dec.Time()}
	var errs []error
	for c := range numCols {
		v, has, err := d.dec.Number(d.col[c])
		if err != nil {
			errs = append(errs, err)
		}
		if has {
			row.Set(c, v)
		}
	}
	return row, true, errors.Join(errs...)
}

// readRows reads every row of r, and the rows that could not be read,
// joined.
func readRows(r io.Reader) ([]Row, error) {
	d, err := newRowDecoder(r)
	if err != nil {
		return nil, err
	}
	var rows []Row
	var reports []error
	for {
		row, ok, err := d.next()
		if err == io.EOF {
			return rows, errors.Join(reports...)
		}
		if err != nil {
			reports = append(reports, err)
		}
		if ok {
			rows = append(rows, row)
		}
	}
}
