package redact

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":                         "http://collector:4318",
		"http://collector:4318/v1/traces":               "http://collector:4318/v1/traces",
		"http://user:PASSWORD@col:4318/v1/traces":       "http://xxxxx@col:4318/v1/traces",
		"https://TOKEN@col":                             "https://xxxxx@col",
		"http://col/base?api_key=KEY&x=1":               "http://col/base?api_key=xxxxx&x=xxxxx",
		"http://u:p@col/?api_key=KEY/v1/traces":         "http://xxxxx@col/?api_key=xxxxx",
		"http://col/p?SECRETWORD#job-1":                 "http://col/p?xxxxx#job-1",
		"https://buildkite.com/a/b/builds/1#e44f":       "https://buildkite.com/a/b/builds/1#e44f",
		"http://a:b@c@col/%zz?k=%zz":                    "http://xxxxx@col/%zz?k=xxxxx",
		"collector:4317":                                "collector:4317",
		"http://col/p?":                                 "http://col/p?",
		"http://[::1]:4318/v1/traces?k=v":               "http://[::1]:4318/v1/traces?k=xxxxx",
		"http://user:p%40ss@col:4318/v1/traces?x=a%26b": "http://xxxxx@col:4318/v1/traces?x=xxxxx",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The errors that wrap a URL in the standard library and in messages.
func TestStringMasksURLsInErrors(t *testing.T) {
	u, _ := url.Parse("http://user:PASSWORD@127.0.0.1:1/base?api_key=APIKEY")
	_, err := http.Post(u.String(), "text/plain", strings.NewReader("x"))
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	for _, msg := range []string{
		err.Error(),
		(&url.Error{Op: "Post", URL: u.String(), Err: errors.New("EOF")}).Error(),
		"failed to send to " + u.String() + ": 400 Bad Request",
		"export to " + u.String() + "/v1/traces incomplete",
		"sent 0 spans to " + u.String() + "; 4 pending",
	} {
		got := String(msg)
		for _, secret := range []string{"PASSWORD", "APIKEY", "user:"} {
			if strings.Contains(got, secret) {
				t.Errorf("String(%q) = %q: %s left", msg, got, secret)
			}
		}
		if !strings.Contains(got, "127.0.0.1:1/base") || strings.Contains(msg, "; 4") && !strings.Contains(got, "api_key=xxxxx; 4 pending") {
			t.Errorf("String(%q) = %q: the host and path are gone", msg, got)
		}
	}
}

func TestAddRegistersSecrets(t *testing.T) {
	Add("Bearer S3CRET-VALUE", "S3CRET-VALUE", "tiny", "p@ss word!")
	for in, want := range map[string]string{
		"rpc error: desc = bad token S3CRET-VALUE":  "rpc error: desc = bad token xxxxx",
		"authorization: Bearer S3CRET-VALUE":        "authorization: xxxxx",
		"tiny is too short to be masked":            "tiny is too short to be masked",
		"escaped p%40ss+word%21 and p@ss%20word%21": "escaped xxxxx and xxxxx",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if Error(nil) != "" {
		t.Error("Error(nil)")
	}
}

// BenchmarkString is the cost added to each line jobtrace prints.
func BenchmarkString(b *testing.B) {
	Add("Bearer S3CRET-VALUE", "S3CRET-VALUE")
	for _, msg := range []string{
		`job "build" exited with code 0 after 1.2s; trace 0af7651916cd43dd8448eb211c80319c`,
		`export to http://127.0.0.1:4318/v1/traces?api_key=k incomplete after 3s: Post "http://u:p@127.0.0.1:4318/v1/traces": EOF`,
	} {
		b.Run(strings.Fields(msg)[0], func(b *testing.B) {
			for b.Loop() {
				String(msg)
			}
		})
	}
}

// FuzzString: masking any text never panics (it runs on every line
// jobtrace prints), is stable, and leaves no user info of a URL it masked.
func FuzzString(f *testing.F) {
	for _, s := range []string{
		"http://u:p@h/p?k=v#f", `Post "https://a@b/?x": EOF`, "x://", "://@?#", "a://b@c?d&e=f;g",
		"export to http://127.0.0.1:4318/v1/traces?api_key=k; 4 pending",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if again := String(got); again != got {
			t.Errorf("not stable: %q -> %q -> %q", s, got, again)
		}
		if u := URL(s); strings.Contains(s, "://") {
			rest := u[strings.Index(u, "://")+3:]
			if at := strings.IndexAny(rest, "/?#"); at >= 0 {
				rest = rest[:at]
			}
			if i := strings.LastIndexByte(rest, '@'); i >= 0 && rest[:i] != Mask {
				t.Errorf("URL(%q) = %q keeps user info", s, u)
			}
		}
	})
}
