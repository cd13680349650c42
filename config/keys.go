package config

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

var durationType = reflect.TypeFor[time.Duration]()

// yamlName returns the YAML key of a struct field, whether the field is
// inlined, and whether it is a key at all.
func yamlName(f reflect.StructField) (name string, inline, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("yaml")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if slices.Contains(strings.Split(opts, ","), "inline") {
		return "", true, true
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, false, true
}

// fieldByKey finds the field of struct value v whose YAML key is key,
// looking into inlined structs.
func fieldByKey(v reflect.Value, key string) (reflect.Value, bool) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, inline, ok := yamlName(t.Field(i))
		switch {
		case !ok:
		case inline:
			if f, ok := fieldByKey(v.Field(i), key); ok {
				return f, true
			}
		case name == key:
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// yamlKeys lists every key of Config as a dotted path; the keys of list
// elements are under the list's key ("markers.patterns.regex").
func yamlKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, inline, ok := yamlName(f)
			if !ok {
				continue
			}
			if inline {
				walk(f.Type, prefix)
				continue
			}
			key := prefix + name
			keys = append(keys, key)
			ft := f.Type
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != durationType {
				walk(ft, key+".")
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return keys
}

var yamlKeySet = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{})
	for _, k := range yamlKeys() {
		set[k] = struct{}{}
	}
	return set
})

var listIndex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\]]*\]`) })

// setOrigin records where the value of key came from.
func (c *Config) setOrigin(key, kind, where string) {
	if c.origins == nil {
		c.origins = make(map[string]origin)
	}
	c.origins[key] = origin{kind: kind, where: where}
}

// originOf returns where key's value came from, falling back to the
// enclosing keys ("markers.patterns[2].regex", "markers.patterns[2]",
// "markers.patterns", "markers").
func (c Config) originOf(key string) (origin, bool) {
	for key != "" {
		if o, ok := c.origins[key]; ok {
			return o, true
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return origin{}, false
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// configError is an error of this package: one line, wrapping ErrConfig.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }
func (e *configError) Unwrap() error { return ErrConfig }

// errorf formats a configError, folding any newline so that the message
// stays on one line.
func errorf(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &configError{msg: strings.ReplaceAll(msg, "\n", " ")}
}
