package client

import (
	"context"
	"reflect"
	"testing"
	"unsafe"
)

// TestKeptSettings checks kept field by field: what New alone reads is
// dropped, and any other setting that differs from its default makes the
// client keep its own copy, with the value (a setting added later and
// forgotten in kept would be lost by the clients sharing defaultKept).
func TestKeptSettings(t *testing.T) {
	dropped := map[string]bool{"env": true, "envDir": true, "logger": true, "http": true,
		"serial": true, "deviceName": true, "appName": true, "deviceKey": true, "swarmKey": true,
		"appKey": true, "stage": true, "url": true, "errs": true}
	if k := defaultSettings().kept(); k != defaultKept {
		t.Fatal("the default settings are not shared")
	}
	check := func(name string, set func(s *settings) reflect.Value, get func(s *settings) reflect.Value) {
		s := defaultSettings()
		want := set(&s)
		k := s.kept()
		switch {
		case dropped[name]:
			if k != defaultKept {
				t.Errorf("%s: a client keeps its own settings for a setting only New reads", name)
			}
		case k == defaultKept:
			t.Errorf("%s: a changed setting is lost: kept shares the defaults", name)
		case !same(get(k), want):
			t.Errorf("%s: kept holds %v, want %v", name, get(k).Interface(), want.Interface())
		}
	}
	field := func(s *settings, path ...int) reflect.Value {
		v := reflect.ValueOf(s).Elem().FieldByIndex(path)
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	st := reflect.TypeFor[settings]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Anonymous {
			for j := range f.Type.NumField() {
				path := []int{i, j}
				check(f.Type.Field(j).Name, func(s *settings) reflect.Value {
					v := field(s, path...)
					v.Set(changed(t, v))
					return v
				}, func(s *settings) reflect.Value { return field(s, path...) })
			}
			continue
		}
		check(f.Name, func(s *settings) reflect.Value {
			v := field(s, i)
			v.Set(changed(t, v))
			return v
		}, func(s *settings) reflect.Value { return field(s, i) })
	}
}

// changed returns a value of v's type other than v.
func changed(t *testing.T, v reflect.Value) reflect.Value {
	t.Helper()
	n := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.String:
		n.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64:
		n.SetInt(v.Int() + 1)
	case reflect.Pointer:
		n.Set(reflect.New(v.Type().Elem()))
	case reflect.Map:
		n.Set(reflect.MakeMap(v.Type()))
	case reflect.Slice:
		n.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Func:
		n.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value { return nil }))
	case reflect.Interface:
		n.Set(reflect.ValueOf(noTracer{}))
	case reflect.Struct: // hookSet
		n.Set(v)
		c := n.FieldByName("n")
		reflect.NewAt(c.Type(), unsafe.Pointer(c.UnsafeAddr())).Elem().SetInt(1)
	default:
		t.Fatalf("a setting of kind %s: teach changed about it", v.Kind())
	}
	return n
}

// same reports whether a and b are the same value: for references, the
// same reference.
func same(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Func, reflect.Map, reflect.Slice, reflect.Pointer:
		return a.Pointer() == b.Pointer()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// noTracer is a TracePropagator that propagates nothing.
type noTracer struct{}

func (noTracer) Inject(context.Context) (string, string) { return "", "" }

func (noTracer) Extract(ctx context.Context, _, _ string) context.Context { return ctx }
