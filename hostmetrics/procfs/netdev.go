package procfs

import "github.com/jobtrace/jobtrace/internal/kernfmt"

// NetDevStat holds the counters of one interface in /proc/net/dev, since the
// interface appeared.
type NetDevStat struct {
	Name                                  string
	RxBytes, RxPackets, RxErrors, RxDrops uint64
	TxBytes, TxPackets, TxErrors, TxDrops uint64
}

// NetDev is the content of /proc/net/dev: the interfaces of the network
// namespace of the process that opens it.
type NetDev struct {
	Interfaces []NetDevStat // in file order; reused between reads
}

// NetDev reads <proc>/net/dev into out, reusing out.Interfaces.
func (f FS) NetDev(out *NetDev) error {
	data, err := f.r.readFile(f.paths.netDev, records)
	if err != nil {
		return err
	}
	return withPath(parseNetDev(data, out), f.paths.netDev)
}

// parseNetDev parses two header lines, then one line per interface:
//
//	eth0: 502888839 36062 0 0 0 0 0 0 3363338 30422 0 0 0 0 0 0
//
// Receive columns: bytes packets errs drop fifo frame compressed multicast;
// transmit columns: bytes packets errs drop fifo colls carrier compressed.
// Interface names cannot contain ':' (the kernel refuses them), and old
// kernels print no blank between the colon and the first number.
func parseNetDev(data []byte, out *NetDev) error {
	ifs := out.Interfaces[:0]
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		if lineNo <= 2 {
			continue
		}
		colon := -1
		for i, c := range line {
			if c == ':' {
				colon = i
				break
			}
		}
		if colon < 0 {
			if f, _ := kernfmt.NextField(line); len(f) == 0 {
				continue
			}
			return parseErr(lineNo, "no ':' after the interface name")
		}
		name, _ := kernfmt.NextField(line[:colon])
		if len(name) == 0 {
			return parseErr(lineNo, "empty interface name")
		}
		var cols [16]uint64
		rest := line[colon+1:]
		for i := range cols {
			var v []byte
			v, rest = kernfmt.NextField(rest)
			n, ok := kernfmt.ParseUint(v)
			if !ok {
				return parseErr(lineNo, "bad or missing counter")
			}
			cols[i] = n
		}
		if len(ifs) < cap(ifs) {
			ifs = ifs[:len(ifs)+1]
		} else {
			ifs = append(ifs, NetDevStat{})
		}
		s := &ifs[len(ifs)-1]
		if s.Name != string(name) {
			s.Name = string(name)
		}
		s.RxBytes, s.RxPackets, s.RxErrors, s.RxDrops = cols[0], cols[1], cols[2], cols[3]
		s.TxBytes, s.TxPackets, s.TxErrors, s.TxDrops = cols[8], cols[9], cols[10], cols[11]
	}
	out.Interfaces = ifs
	return nil
}
