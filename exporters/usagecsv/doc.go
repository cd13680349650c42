// Package usagecsv writes the resource usage of a job as a CSV file,
// resource-usage.csv in the output directory, one row per sample, while the
// job runs.
//
// The file is made for people: open it in a spreadsheet, or read it with any
// CSV library. It has a header line, then one row per sample the Sampler
// takes (start, interval, phase boundary, end; the reason column says
// which), with the time in UTC, the phase that was active, and the figures
// of the job and of the machine. Column names carry their unit as a suffix
// (_s, _bytes, _pct, _count).
//
// Cumulative counters (CPU time, bytes read, stall time) are written as the
// change since the previous row, so that the sum of a column over a span of
// rows is the total over that span; the first row has no previous one and
// leaves them empty. Gauges (memory in use, processes, load) are the value
// at the sample. A figure the system cannot give is an empty cell, never a
// zero.
//
// Each row is written with one write call as soon as it is formatted, with
// nothing buffered across rows: if the agent is killed, the file holds every
// row but the one being written. Rows are formatted into one reused buffer,
// so writing a row does not allocate.
//
// The columns are declared once, in columns (columns.go); docs/csv.md documents them and
// a test keeps the two in step. New columns are only ever appended, so a
// reader that picks columns by position keeps working. Decoder reads the
// file back through the same table, by the columns' names; a Writer's Tee
// gets the rows as written, for what reads them in memory.
package usagecsv
