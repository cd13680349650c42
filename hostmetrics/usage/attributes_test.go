package usage

import (
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/readback"
)

// full is a usage with every figure present, its utilisations already
// rounded as Attributes rounds them.
func full() Usage {
	st := Stalls{
		CPUSome: 1500 * time.Microsecond, MemorySome: 2 * time.Millisecond, MemoryFull: time.Millisecond,
		IOSome: 3 * time.Second, IOFull: 123456789 * time.Nanosecond,
		HasCPUSome: true, HasMemorySome: true, HasMemoryFull: true, HasIOSome: true, HasIOFull: true,
	}
	sys := st
	sys.MemoryFull, sys.HasMemoryFull, sys.IOFull, sys.HasIOFull = 0, false, 0, false
	return Usage{
		Samples: 7,
		HasCPU:  true, CPUUser: 1234567891 * time.Nanosecond, CPUSystem: 3 * time.Millisecond,
		CPUAvg: 0.4321, CPUPeak: 1,
		HasMemory: true, MemoryPeak: 1 << 40,
		HasIO: true, ReadBytes: 5, WriteBytes: 1 << 33,
		HasPressure: true, Pressure: st,
		HasOOMKills: true, OOMKills: 2,
		HasSystemCPU: true, SystemCPUAvg: 0.5, SystemCPUPeak: 0.9999,
		SystemCPUIOWait: 250 * time.Millisecond, SystemCPUSteal: 7 * time.Microsecond,
		HasSystemMemory: true, SystemMemoryPeak: 3 << 30,
		HasSystemDisk: true, SystemReadBytes: 1, SystemWriteBytes: 2,
		HasNetwork: true, NetworkReceive: 10, NetworkTransmit: 20,
		HasSystemPressure: true, SystemPressure: sys,
	}
}

// FromAttributes is the inverse of Attributes: a usage written as
// attributes reads back as itself, and so does one with every figure
// absent.
func TestFromAttributesRoundTrip(t *testing.T) {
	for name, u := range map[string]Usage{"full": full(), "empty": {}, "cpu only": {HasCPU: true, CPUUser: time.Second, CPUAvg: 0.1}} {
		got := FromAttributes(u.Attributes())
		if !reflect.DeepEqual(got, u) {
			t.Errorf("%s: read back\n%+v\nwrote\n%+v", name, got, u)
		}
	}
	// Utilisations are rounded when written: what is read back writes
	// the same attributes again.
	u := full()
	u.CPUAvg, u.SystemCPUPeak = 1.0/3, 2.0/3
	a := u.Attributes()
	back := FromAttributes(a)
	if b := back.Attributes(); !reflect.DeepEqual(a, b) {
		t.Errorf("written again:\n%v\nfirst:\n%v", b, a)
	}
}

// A group is read only whole, a number of the wrong type or sign, or past
// MaxFigure, is absent, and an int stands for a float (another tool may write either).
func TestFromAttributesPartsAndTypes(t *testing.T) {
	u := FromAttributes([]attribute.KeyValue{
		AttrCPUUser.Float64(1), AttrCPUSystem.Float64(1), AttrCPUAvg.Float64(0.5), // no peak
		AttrDiskRead.Int64(5), AttrDiskWrite.String("6"),
		AttrMemoryPeak.Float64(1024),
		AttrSysNetReceive.Int64(-1), AttrSysNetTransmit.Int64(1),
		AttrSysDiskRead.Float64(math.NaN()), AttrSysDiskWrite.Int64(1),
		AttrStallIO.Int64(2),
		AttrSysMemoryPeak.Float64(math.Inf(1)),
		AttrOOMKills.Float64(math.MaxFloat64), // past MaxFigure
	})
	if u.HasCPU || u.HasIO || u.HasNetwork || u.HasSystemDisk || u.HasSystemMemory || u.HasOOMKills {
		t.Errorf("partial or bad groups read: %+v", u)
	}
	if !u.HasMemory || u.MemoryPeak != 1024 {
		t.Errorf("memory %v %d, want the float 1024", u.HasMemory, u.MemoryPeak)
	}
	if !u.HasPressure || !u.Pressure.HasIOSome || u.Pressure.IOSome != 2*time.Second || u.Pressure.HasCPUSome {
		t.Errorf("pressure %+v, want io some 2s only", u.Pressure)
	}
}

// Every key is read by the rule of package readback: set again over a
// full usage, a key is read back as readback.Number reads it, the last of
// the two, present when it is a figure and absent otherwise.
func TestFromAttributesReadsByReadback(t *testing.T) {
	values := []attribute.Value{
		attribute.Int64Value(3), attribute.Float64Value(2), attribute.Int64Value(1),
		attribute.Int64Value(-1), attribute.Float64Value(-0.5), attribute.Float64Value(math.MaxFloat64),
		attribute.Float64Value(math.Inf(1)), attribute.Float64Value(math.NaN()),
		attribute.StringValue("1"), attribute.BoolValue(true),
	}
	for _, k := range AttributeKeys() {
		for _, v := range values {
			u := full()
			attrs := append(u.Attributes(), attribute.KeyValue{Key: k, Value: v})
			want, ok := readback.Number(attrs, k)
			back := FromAttributes(attrs)
			got, has := readback.Number(back.Attributes(), k)
			if has != ok {
				t.Errorf("%s = %s: read %v, readback reads %v", k, v.Emit(), has, ok)
				continue
			}
			// 3, 2 and 1 read back as themselves as a count,
			// seconds, a share and samples.
			if ok && got != want {
				t.Errorf("%s = %s: read %v, readback reads %v", k, v.Emit(), got, want)
			}
		}
	}
}

// A span's figures in seconds show as their decimals in Jaeger and the
// Firefox Profiler, which print an attribute's float as it is: CPU time
// 1.234567891 s was 1.2345678909999999.
func TestAttributesShowSecondsAsTheirDecimals(t *testing.T) {
	want := map[attribute.Key]string{AttrCPUUser: "1.234567891", AttrSysCPUIOWait: "0.25"}
	u := full()
	u.Pressure.IOSome = 2446931156
	want[AttrStallIO] = "2.446931156"
	for _, kv := range u.Attributes() {
		if w, ok := want[kv.Key]; ok {
			if got := strconv.FormatFloat(kv.Value.AsFloat64(), 'g', -1, 64); got != w {
				t.Errorf("%s = %s, want %s", kv.Key, got, w)
			}
			delete(want, kv.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("not written: %v", want)
	}
}
