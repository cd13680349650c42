package procfs

import (
	"errors"
	"strconv"
)

// ErrParse is wrapped by every error about a file that exists but does not
// have the expected format.
var ErrParse = errors.New("procfs: parse")

// ParseError says where a file failed to parse. It wraps [ErrParse].
// Path is empty when the data did not come from a file (see [ParsePressure]).
type ParseError struct {
	Path string
	Line int // 1-based
	Msg  string
}

func (e *ParseError) Error() string {
	s := ErrParse.Error() + ": "
	if e.Path != "" {
		s += e.Path + " "
	}
	return s + "line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

func (e *ParseError) Unwrap() error { return ErrParse }

func parseErr(line int, msg string) error {
	return &ParseError{Line: line, Msg: msg}
}

// withPath fills in the path of a ParseError returned by a parser. It uses a
// type assertion, not errors.As, whose target would escape and cost an
// allocation on every successful read.
func withPath(err error, path string) error {
	if pe, ok := err.(*ParseError); ok && pe.Path == "" {
		pe.Path = path
	}
	return err
}
