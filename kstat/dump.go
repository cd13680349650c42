package kstat

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Dump writes what the Token reads for the kstats sel picks, for a person
// checking the client against a live system: the chain id, the headers of
// the matching kstats, then, unless headersOnly, the values of each named
// kstat and the counters of each I/O kstat. Other types are listed, not
// decoded. A kstat that cannot be read gets an error line and the others
// are still written; the errors are returned together.
func (t *Token) Dump(w io.Writer, sel Selector, headersOnly bool) error {
	t.mu.Lock()
	kcid, list := t.kcid, t.list
	t.mu.Unlock()
	var match []KStat
	for _, k := range list {
		if sel.Match(k) {
			match = append(match, k)
		}
	}
	fmt.Fprintf(w, "kstat chain id %d: %d kstats, %d match %s\n", kcid, len(list), len(match), sel)
	if len(match) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KID\tMODULE:INSTANCE:NAME\tCLASS\tTYPE\tNDATA\tDATA SIZE\tFLAGS")
	for _, k := range match {
		info := decodeHeaderInfo(header(k)[:])
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\n", k.ID, k, k.Class, k.Type, info.ndata, info.dataSize, flagNames(info.flags))
	}
	tw.Flush()
	if headersOnly {
		return nil
	}
	var errs []error
	for _, k := range match {
		switch k.Type {
		case TypeNamed:
			ns, info, err := t.readNamed(k)
			if err != nil {
				fmt.Fprintf(w, "\n%s (kid %d, named)\n  error: %v\n", k, k.ID, err)
				errs = append(errs, err)
				continue
			}
			fmt.Fprintf(w, "\n%s (kid %d, named, %d values, snaptime %d ns)\n", k, k.ID, len(ns), info.snaptime)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, n := range ns {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", n.Name, n.Type, formatNamed(n))
			}
			tw.Flush()
		case TypeIO:
			v, info, err := t.readIO(k)
			if err != nil {
				fmt.Fprintf(w, "\n%s (kid %d, io)\n  error: %v\n", k, k.ID, err)
				errs = append(errs, err)
				continue
			}
			fmt.Fprintf(w, "\n%s (kid %d, io, snaptime %d ns)\n", k, k.ID, info.snaptime)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, f := range []struct {
				name string
				v    any
			}{
				{"nread", v.NRead}, {"nwritten", v.NWritten},
				{"reads", v.Reads}, {"writes", v.Writes},
				{"wtime", v.WTime}, {"wlentime", v.WLenTime}, {"wlastupdate", v.WLastUpdate},
				{"rtime", v.RTime}, {"rlentime", v.RLenTime}, {"rlastupdate", v.RLastUpdate},
				{"wcnt", v.WCnt}, {"rcnt", v.RCnt},
			} {
				fmt.Fprintf(tw, "  %s\t%d\n", f.name, f.v)
			}
			tw.Flush()
		}
	}
	return errors.Join(errs...)
}

func formatNamed(n Named) string {
	switch n.Type {
	case DataChar, DataString:
		return strconv.Quote(n.Str)
	case DataInt32, DataInt64:
		return strconv.FormatInt(n.Int, 10)
	case DataUint32, DataUint64:
		return strconv.FormatUint(n.Uint, 10)
	}
	return "(not decoded)"
}

// flagNames spells ks_flags out.
func flagNames(f uint8) string {
	if f == 0 {
		return "-"
	}
	var names []string
	for _, fl := range []struct {
		bit  uint8
		name string
	}{
		{flagVirtual, "virtual"}, {flagVarSize, "var_size"}, {flagWritable, "writable"},
		{flagPersistent, "persistent"}, {flagDormant, "dormant"}, {flagInvalid, "invalid"},
		{flagLongStrings, "longstrings"}, {flagNoHeaders, "no_headers"},
	} {
		if f&fl.bit != 0 {
			names = append(names, fl.name)
		}
	}
	return strings.Join(names, ",")
}
