//go:build unix

package main

import (
	"bytes"
	"debug/buildinfo"
	"os/exec"
	"strings"
	"testing"
)

// unlinked are the modules the jobtrace binary does without, and what does
// their work instead. Each linked module costs every jobtrace command its
// package inits and page faults at start (docs/performance.md, "Wrapping a
// job"); tests may still use them.
var unlinked = map[string]string{
	"google.golang.org/grpc":                    "OTLP/gRPC is a call over net/http (exporters/otlp/grpc.go)",
	"google.golang.org/protobuf":                "pdata writes OTLP's protobuf; exporters/otlp/response.go reads a partial success",
	"go.opentelemetry.io/proto/otlp":            "pdata is the one OTLP encoding",
	"github.com/grpc-ecosystem/grpc-gateway/v2": "linked only by go.opentelemetry.io/proto/otlp",
	"google.golang.org/genproto":                "linked only by gRPC and go.opentelemetry.io/proto/otlp",
}

// The binary's build information lists every module linked into it.
func TestBinaryLinksNoGRPCNorProtobuf(t *testing.T) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range info.Deps {
		for path, instead := range unlinked {
			if m.Path == path || strings.HasPrefix(m.Path, path+"/") {
				t.Errorf("the jobtrace binary links %s %s: %s", m.Path, m.Version, instead)
			}
		}
	}
}

// unlinkedPackages are packages of the standard library the binary does
// without, and what does their work instead: each costs its package init
// at every start.
var unlinkedPackages = map[string]string{
	"html/template": "report.html and its diff section are written by hand (render/report/html.go, diff.go)",
	"text/template": "linked only by html/template",
}

// The binary's symbol table names every package linked into it.
func TestBinaryLinksNoTemplates(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for pkg, instead := range unlinkedPackages {
		if i := bytes.Index(out, []byte(" "+pkg+".")); i >= 0 {
			line := out[i:]
			line = line[:max(bytes.IndexByte(line, '\n'), 0)]
			t.Errorf("the jobtrace binary links %s (%s): %s", pkg, line, instead)
		}
	}
}
