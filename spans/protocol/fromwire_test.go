package protocol

import (
	"reflect"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/spans/wire"
)

// Every field of a wire message is carried into the Msg of the same name:
// a field added to one and not mapped fails here.
func TestFromWireCarriesEveryField(t *testing.T) {
	var w wire.Msg
	wv := reflect.ValueOf(&w).Elem()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for i := range wv.NumField() {
		f := wv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("v-" + wv.Type().Field(i).Name)
		case reflect.Int:
			f.SetInt(7)
		case reflect.Float64:
			f.SetFloat(2.5)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Struct:
			f.Set(reflect.ValueOf(at.Add(time.Duration(i) * time.Second)))
		default:
			t.Fatalf("wire.Msg.%s: a kind this test does not fill (%v)", wv.Type().Field(i).Name, f.Kind())
		}
	}
	m := FromWire(w)
	mv := reflect.ValueOf(m)
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		got := mv.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("Msg has no field %s", name)
			continue
		}
		want := wv.Field(i).Interface()
		if got.Kind() == reflect.String {
			if got.String() != wv.Field(i).String() {
				t.Errorf("%s = %q, want %q", name, got.String(), wv.Field(i).String())
			}
			continue
		}
		if !reflect.DeepEqual(got.Interface(), want) {
			t.Errorf("%s = %v, want %v", name, got.Interface(), want)
		}
	}
	if w.V = 0; FromWire(w).V != Version {
		t.Errorf("a message without its version: V = %d, want %d", FromWire(w).V, Version)
	}
}
