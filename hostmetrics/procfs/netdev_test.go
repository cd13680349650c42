package procfs

import "testing"

func TestNetDevFixture(t *testing.T) {
	var n NetDev
	if err := fixture.NetDev(&n); err != nil {
		t.Fatal(err)
	}
	if len(n.Interfaces) != 4 {
		t.Fatalf("got %+v", n.Interfaces)
	}
	lo, eth0 := n.Interfaces[0], n.Interfaces[3]
	if lo.Name != "lo" || lo.RxBytes != 9456386 || lo.TxPackets != 66785 {
		t.Errorf("lo = %+v", lo)
	}
	if eth0 != (NetDevStat{Name: "eth0", RxBytes: 502888839, RxPackets: 36062, TxBytes: 3363338, TxPackets: 30422}) {
		t.Errorf("eth0 = %+v", eth0)
	}
}

const netDevHeader = "Inter-|   Receive                                                |  Transmit\n" +
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"

func TestParseNetDev(t *testing.T) {
	var n NetDev
	// Old kernels glue large numbers to the colon.
	in := netDevHeader + "  eth0:12345678901 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n" +
		"    lo: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n" +
		"wlan0: 1 2 3 4 0 0 0 0 5 6 7 8 0 0 0 0\n"
	if err := parseNetDev([]byte(in), &n); err != nil {
		t.Fatal(err)
	}
	want := NetDevStat{Name: "eth0", RxBytes: 12345678901, RxPackets: 2, RxErrors: 3, RxDrops: 4, TxBytes: 9, TxPackets: 10, TxErrors: 11, TxDrops: 12}
	if n.Interfaces[0] != want {
		t.Errorf("eth0 = %+v, want %+v", n.Interfaces[0], want)
	}
	if err := parseNetDev([]byte(netDevHeader), &n); err != nil || len(n.Interfaces) != 0 {
		t.Errorf("no interfaces: %v %+v", err, n.Interfaces)
	}
	for _, tc := range []struct {
		in   string
		line int
	}{
		{netDevHeader + "eth0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", 3},
		{netDevHeader + "lo: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\neth0: 1 2 3\n", 4},
		{netDevHeader + ": 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", 3},
		{netDevHeader + "eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 x\n", 3},
	} {
		wantParseErr(t, parseNetDev([]byte(tc.in), &n), tc.line)
	}
}
