package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// MaxFileBytes bounds the configuration file. A real one is a few
// kilobytes; a path to /dev/zero or a FIFO by mistake is refused at once
// rather than read until memory runs out or a writer appears.
const MaxFileBytes = 1 << 20

// readFile applies the configuration file at path on top of c.
func readFile(path string, c *Config) error {
	data, err := regularfile.Read(path, MaxFileBytes)
	if err != nil {
		return fileError(path, err)
	}
	return parseFile(path, data, c)
}

// fileError reports that the configuration file cannot be read, without
// the name of the system call that failed.
func fileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return errorf("config file %s: %v", path, err)
}

var yamlLineError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// parseFile applies the YAML document data, read from the file name, on top
// of c. It walks the document's nodes against Config's yaml tags, rather
// than decoding into the struct, so that every mistake is reported with its
// line and in words that name the key.
func parseFile(name string, data []byte, c *Config) error {
	syntaxError := func(err error) error {
		msg := err.Error()
		if m := yamlLineError().FindStringSubmatch(msg); m != nil {
			return errorf("%s:%s: %s", name, m[1], m[2])
		}
		return errorf("%s: %s", name, strings.TrimPrefix(msg, "yaml: "))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, next yaml.Node
	switch err := dec.Decode(&doc); {
	case err == io.EOF:
		return nil // empty
	case err != nil:
		return syntaxError(err)
	}
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return syntaxError(err)
	default:
		return errorf("%s:%d: a second YAML document; the file must hold one", name, next.Line)
	}
	if len(doc.Content) == 0 {
		return nil // empty, or only comments
	}
	d := fileDecoder{name: name, c: c}
	root := doc.Content[0]
	if isNull(root) {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return d.errorAt(root, "the file must be a mapping of keys to values")
	}
	return d.decodeStruct(root, reflect.ValueOf(c).Elem(), "")
}

type fileDecoder struct {
	name string
	c    *Config
}

func (d *fileDecoder) errorAt(n *yaml.Node, format string, args ...any) error {
	return errorf("%s:%d: %s", d.name, n.Line, fmt.Sprintf(format, args...))
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return strconv.Quote(n.Value)
	}
}

// decodeStruct applies mapping node n to struct value v; key is the dotted
// key of v ("" for the whole file).
func (d *fileDecoder) decodeStruct(n *yaml.Node, v reflect.Value, key string) error {
	in := ""
	if key != "" {
		in = " in " + key
	}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if kn.Kind != yaml.ScalarNode {
			return d.errorAt(kn, "a key%s is %s, not a name", in, kindName(kn))
		}
		name := kn.Value
		if seen[name] {
			return d.errorAt(kn, "duplicate key %q%s", name, in)
		}
		seen[name] = true
		f, ok := fieldByKey(v, name)
		if !ok {
			return d.errorAt(kn, "unknown key %q%s", name, in)
		}
		sub := name
		if key != "" {
			sub = key + "." + name
		}
		d.c.setOrigin(sub, "file", fmt.Sprintf("%s:%d", d.name, kn.Line))
		if err := d.decode(vn, f, sub); err != nil {
			return err
		}
	}
	return nil
}

// decode applies node n to value v, whose dotted key is key.
func (d *fileDecoder) decode(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	t := v.Type()
	if isNull(n) {
		switch t.Kind() {
		case reflect.Struct:
			return nil // an empty section changes nothing
		case reflect.Map, reflect.Slice, reflect.Pointer:
			v.Set(reflect.Zero(t))
			return nil
		}
		return d.errorAt(n, "%s has no value", key)
	}
	switch {
	case t == durationType:
		dur, err := time.ParseDuration(n.Value)
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || err != nil {
			return d.errorAt(n, "%s: %s is not a duration (like 3s or 500ms)", key, kindName(n))
		}
		v.SetInt(int64(dur))
		return nil
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := d.decode(n, p.Elem(), key); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return d.errorAt(n, "%s must be a mapping of keys to values, not %s", key, kindName(n))
		}
		return d.decodeStruct(n, v, key)
	case t.Kind() == reflect.Map:
		return d.decodeMap(n, v, key)
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return d.errorAt(n, "%s must be a list, not %s", key, kindName(n))
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, en := range n.Content {
			ek := fmt.Sprintf("%s[%d]", key, i)
			d.c.setOrigin(ek, "file", fmt.Sprintf("%s:%d", d.name, en.Line))
			if err := d.decode(en, s.Index(i), ek); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return d.errorAt(n, "%s must be a single value, not %s", key, kindName(n))
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if n.ShortTag() != "!!bool" || err != nil {
			return d.errorAt(n, "%s: %q is not true or false", key, n.Value)
		}
		v.SetBool(b)
	case reflect.Int:
		var i int
		if n.ShortTag() != "!!int" || n.Decode(&i) != nil {
			return d.errorAt(n, "%s: %q is not an integer", key, n.Value)
		}
		v.SetInt(int64(i))
	default:
		return d.errorAt(n, "%s: cannot hold a value of Go type %s", key, t)
	}
	return nil
}

// decodeMap merges mapping node n into the map[string]string v: a key set
// in the file replaces the same key of a lower layer.
func (d *fileDecoder) decodeMap(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return d.errorAt(n, "%s must be a mapping of keys to values, not %s", key, kindName(n))
	}
	m := make(map[string]string, len(n.Content)/2+v.Len())
	for it := v.MapRange(); it.Next(); {
		m[it.Key().String()] = it.Value().String()
	}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		if vn.Kind == yaml.AliasNode {
			vn = vn.Alias
		}
		if kn.Kind != yaml.ScalarNode {
			return d.errorAt(kn, "a key in %s is %s, not a name", key, kindName(kn))
		}
		if seen[kn.Value] {
			return d.errorAt(kn, "duplicate key %q in %s", kn.Value, key)
		}
		seen[kn.Value] = true
		if isNull(vn) {
			return d.errorAt(vn, "%s.%s has no value", key, kn.Value)
		}
		if vn.Kind != yaml.ScalarNode {
			return d.errorAt(vn, "%s.%s must be a single value, not %s", key, kn.Value, kindName(vn))
		}
		m[kn.Value] = vn.Value
		d.c.setOrigin(key+"["+kn.Value+"]", "file", fmt.Sprintf("%s:%d", d.name, kn.Line))
	}
	v.Set(reflect.ValueOf(m))
	return nil
}
