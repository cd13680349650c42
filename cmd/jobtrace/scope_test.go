//go:build unix

package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/cmd/jobtrace/internal/fastpath"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// TestFullCommandSendsItsScope: a marker command that the fast path does
// not answer sends the scope it sends, the TRACEPARENT the command was
// started with (a step's), so that the marker applies within that step
// whichever of the two answers it; a counter, which belongs to the job,
// has none.
func TestFullCommandSendsItsScope(t *testing.T) {
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	path, lines := listenOK(t)
	env := map[string]string{session.EnvSocket: path, "TRACEPARENT": tp}
	c := &cli{start: time.Now(), getenv: func(k string) string { return env[k] }}
	for _, args := range [][]string{
		{"phase", "begin", "compile", "--attr", "k=v"},
		{"phase", "end", "compile", "--result", "failure"},
		{"event", "cache-miss"},
		{"counter", "tests", "--value", "2"},
	} {
		if err := c.marker(args[0], "", "", args[1:]); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		got, err := protocol.Parse([]byte(<-lines))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		r, err := fastpath.Parse(args)
		if err != nil {
			t.Fatal(err)
		}
		line := r.AppendLine(nil, got.Time, tp)
		want, err := protocol.Parse(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		// The fast path asks for a reply, the full command's client
		// does so by itself; times are compared apart.
		got.Ack, got.Time, want.Time = want.Ack, time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the full command sent\n %+v\nthe fast path\n %+v", args, got, want)
		}
		if wantScope := map[bool]string{true: tp}[r.Type != "counter"]; got.Scope != wantScope {
			t.Errorf("%q: scope %q, want %q", args, got.Scope, wantScope)
		}
	}
}
