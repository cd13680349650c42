package promtext

import (
	"slices"
	"strings"
)

// unitWord is the Prometheus word of an OpenTelemetry (UCUM) unit; "1"
// has none (a gauge of unit 1 gets "_ratio" instead). ok is false for a
// unit without one, which is kept as it is, its invalid characters made
// "_".
func unitWord(unit string) (word string, ok bool) {
	switch unit {
	case "d":
		return "days", true
	case "h":
		return "hours", true
	case "min":
		return "minutes", true
	case "s":
		return "seconds", true
	case "ms":
		return "milliseconds", true
	case "us":
		return "microseconds", true
	case "ns":
		return "nanoseconds", true
	case "By":
		return "bytes", true
	case "KiBy":
		return "kibibytes", true
	case "MiBy":
		return "mebibytes", true
	case "GiBy":
		return "gibibytes", true
	case "TiBy":
		return "tibibytes", true
	case "KBy":
		return "kilobytes", true
	case "MBy":
		return "megabytes", true
	case "GBy":
		return "gigabytes", true
	case "TBy":
		return "terabytes", true
	case "m":
		return "meters", true
	case "V":
		return "volts", true
	case "A":
		return "amperes", true
	case "J":
		return "joules", true
	case "W":
		return "watts", true
	case "g":
		return "grams", true
	case "Cel":
		return "celsius", true
	case "Hz":
		return "hertz", true
	case "1":
		return "", true
	case "%":
		return "percent", true
	}
	return "", false
}

// perUnitWord is the Prometheus word of a unit after "/".
func perUnitWord(unit string) (word string, ok bool) {
	switch unit {
	case "s":
		return "second", true
	case "m":
		return "minute", true
	case "h":
		return "hour", true
	case "d":
		return "day", true
	case "w":
		return "week", true
	case "mo":
		return "month", true
	case "y":
		return "year", true
	}
	return "", false
}

// kind is what a metric becomes, for its name and its TYPE line.
type kind int

const (
	kindGauge     kind = iota // a gauge
	kindSumGauge              // a non-monotonic sum: a gauge, but no "_ratio"
	kindCounter               // a monotonic sum
	kindHistogram             // an explicit-bucket histogram
)

// typeName is the TYPE of a kind.
func (k kind) typeName() string {
	switch k {
	case kindCounter:
		return "counter"
	case kindHistogram:
		return "histogram"
	default:
		return "gauge"
	}
}

// metricChar says whether r may be in a metric name as it is.
func metricChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ':'
}

// labelChar says whether r may be in a label name as it is ("_" is
// handled apart: runs of it become one).
func labelChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// metricName is the Prometheus name of a metric: its name's tokens
// (separated by any character a name may not hold, "_" included), the
// unit's words unless a token is already that word, "total" for a counter
// and "ratio" for a gauge of unit 1 (each moved to the end if the name
// holds it), joined by "_", with "_" in front when that starts with a
// digit. "" when nothing is left.
func metricName(name, unit string, k kind) string {
	tokens := strings.FieldsFunc(name, func(r rune) bool { return !metricChar(r) })
	main, per := unitWords(unit)
	if main != "" && !slices.Contains(tokens, main) {
		tokens = append(tokens, main)
	}
	if per != "" && !slices.Contains(tokens, per) {
		tokens = append(tokens, per)
	}
	if k == kindCounter {
		tokens = append(slices.DeleteFunc(tokens, func(t string) bool { return t == "total" }), "total")
	}
	if unit == "1" && k == kindGauge {
		tokens = append(slices.DeleteFunc(tokens, func(t string) bool { return t == "ratio" }), "ratio")
	}
	if k != kindHistogram && len(tokens) > 0 && reservedSuffix(tokens[len(tokens)-1]) {
		tokens = countedName(tokens, unit)
	}
	n := strings.Join(tokens, "_")
	if n != "" && n[0] >= '0' && n[0] <= '9' {
		n = "_" + n
	}
	return n
}

// reservedSuffix says whether a name's last token ends the series of a
// histogram: a gauge or counter whose name ends in one reads as part of a
// histogram (promtool flags it).
func reservedSuffix(token string) bool {
	return token == "count" || token == "sum" || token == "bucket"
}

// countedName renames a metric whose tokens end in a reserved suffix and
// whose unit is an annotation ({thread}), the way a Prometheus library
// names a count: the suffix gives way to the plural of the annotation,
// which takes the place of the token before it when that token is the
// annotation itself ("process.thread.count" {thread} → process_threads,
// "jobtrace.process.count" {process} → jobtrace_processes). Without an
// annotation the tokens stay as they are.
func countedName(tokens []string, unit string) []string {
	ann, ok := strings.CutPrefix(strings.TrimSpace(unit), "{")
	if ann, ok = strings.CutSuffix(ann, "}"); !ok || strings.ContainsAny(ann, "{}/") {
		return tokens
	}
	ann = cleanUnit(ann)
	if ann == "" {
		return tokens
	}
	tokens = tokens[:len(tokens)-1]
	if n := len(tokens); n > 0 && tokens[n-1] == ann {
		tokens = tokens[:n-1]
	}
	return append(tokens, plural(ann))
}

// plural is the English plural of a unit's annotation, by the common rules.
func plural(w string) string {
	switch {
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "z"),
		strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		return w + "es"
	case len(w) > 1 && strings.HasSuffix(w, "y") && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// unitWords splits a unit at "/" into the words of the name's unit suffix:
// "By/s" is "bytes", "per_second". A part in braces ({packet}) or blank
// has none.
func unitWords(unit string) (main, per string) {
	m, p, hasPer := strings.Cut(unit, "/")
	if m = strings.TrimSpace(m); m != "" && !strings.ContainsAny(m, "{}") {
		if w, ok := unitWord(m); ok {
			m = w
		}
		main = cleanUnit(m)
	}
	if p = strings.TrimSpace(p); hasPer && p != "" && !strings.ContainsAny(p, "{}") {
		if w, ok := perUnitWord(p); ok {
			p = w
		}
		if p = cleanUnit(p); p != "" {
			per = "per_" + p
		}
	}
	return main, per
}

// cleanUnit makes a unit's word a valid part of a name: invalid characters
// become "_", runs of "_" one, and "_" at either end goes.
func cleanUnit(u string) string {
	var b strings.Builder
	under := false
	for _, r := range u {
		if !metricChar(r) {
			r = '_'
		}
		if r == '_' && under {
			continue
		}
		under = r == '_'
		b.WriteRune(r)
	}
	return strings.Trim(b.String(), "_")
}

// labelName is the label name of an attribute key: characters outside
// [a-zA-Z0-9] become "_", runs of "_" one, and "key_" goes in front of a
// leading digit. "" when only "_" would be left.
func labelName(key string) string {
	var b strings.Builder
	under, any := false, false
	for _, r := range key {
		if !labelChar(r) {
			if !under {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		under, any = false, true
		b.WriteRune(r)
	}
	if !any {
		return ""
	}
	n := b.String()
	if n[0] >= '0' && n[0] <= '9' {
		n = "key_" + n
	}
	return n
}
