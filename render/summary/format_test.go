package summary

import (
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{fmtBytes(0), "0 B"},
		{fmtBytes(1023), "1023 B"},
		{fmtBytes(1024), "1.0 KiB"},
		{fmtBytes(1536), "1.5 KiB"},
		{fmtBytes(999 * kib), "999.0 KiB"},
		{fmtBytes(1000 * kib), "1.0 MiB"}, // 0.98 MiB: never four digits
		{fmtBytes(300*mib + 100*kib), "300.1 MiB"},
		{fmtBytes(1536 * mib), "1.5 GiB"},
		{fmtBytes(3 << 40), "3.0 TiB"},
		{fmtRate(2.5 * mib), "2.5 MiB/s"},
		{fmtPercent(0), "0.0%"},
		{fmtPercent(3.14), "3.1%"},
		{fmtPercent(9.96), "10%"},
		{fmtPercent(99.6), "100%"},
		{fmtCount(0.25), "0.2"},
		{fmtCount(1234.4), "1234"},
		{Duration(-time.Second), "0µs"},
		{Duration(1500 * time.Microsecond), "1.5ms"},
		{Duration(1500 * time.Millisecond), "1.50s"},
		{Duration(90*time.Minute + 20*time.Second), "1h30m20s"},
		{truncate("abcdef", 4), "abc…"},
		{truncate("äbc", 3), "äbc"},
		{truncate("äbçdé", 4), "äbç…"},
		{oneLine("a\r\nb\x1b[31m"), "a  b [31m"},
		{oneLine("bad \xff byte"), "bad \ufffd byte"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
