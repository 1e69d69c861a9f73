package llm

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// ToolFor describes a tool whose input is the struct T. The JSON Schema is
// derived from T's fields so the tool's parameters and the Go code that
// decodes them cannot drift apart:
//
//   - the property name is the field's json tag name (or the Go name), and a
//     field tagged json:"-" or unexported is left out; embedded structs are
//     flattened the way encoding/json flattens them;
//   - a field tagged omitempty or omitzero is optional, every other field is
//     required;
//   - desc:"..." becomes the property's description, enum:"a,b" its allowed
//     values (on a slice, the allowed values of its items);
//   - strings, bools, integers, floats, slices, arrays, maps with string keys,
//     nested structs and pointers to any of these are supported;
//     json.RawMessage and interface fields accept any JSON value, and a type
//     implementing encoding.TextMarshaler is a string.
//
// The bytes are compact and identical from run to run: object keys in a fixed
// order, properties in field declaration order, and "additionalProperties":
// false on every object. Providers cache prompts on these bytes, so a schema
// that shuffled its keys would silently defeat prompt caching.
//
// ToolFor panics on a type it cannot describe (a channel, a func, a recursive
// struct, an enum tag on a bool, two fields with one name): tool definitions
// are fixed at compile time, so that is a bug every test run catches.
func ToolFor[T any](name, description string) Tool {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("llm.ToolFor(%q): input type %s is not a struct", name, t))
	}
	w := schemaWriter{tool: name, active: map[reflect.Type]bool{}}
	w.object(t, "")
	return Tool{Name: name, Description: description, Schema: json.RawMessage(w.buf.Bytes())}
}

// schemaWriter emits one JSON Schema by hand, so that key order is a property
// of this code rather than of a map's iteration order.
type schemaWriter struct {
	tool   string
	buf    bytes.Buffer
	active map[reflect.Type]bool // structs being described, to refuse recursion
}

// schemaField is one property of an object schema.
type schemaField struct {
	name     string
	typ      reflect.Type
	desc     string
	enum     []string
	optional bool
}

var (
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

func (w *schemaWriter) fail(format string, args ...any) {
	panic(fmt.Sprintf("llm.ToolFor(%q): ", w.tool) + fmt.Sprintf(format, args...))
}

// object writes the schema of struct t.
func (w *schemaWriter) object(t reflect.Type, desc string) {
	if w.active[t] {
		w.fail("type %s refers to itself; JSON Schema without $ref cannot describe it", t)
	}
	w.active[t] = true
	defer delete(w.active, t)

	fields := w.fields(t, nil)
	w.buf.WriteString(`{"type":"object"`)
	w.description(desc)
	w.buf.WriteString(`,"properties":{`)
	var required []string
	for i, f := range fields {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.str(f.name)
		w.buf.WriteByte(':')
		w.value(f.typ, f.desc, f.enum)
		if !f.optional {
			required = append(required, f.name)
		}
	}
	w.buf.WriteByte('}')
	if len(required) > 0 {
		w.buf.WriteString(`,"required":[`)
		for i, name := range required {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			w.str(name)
		}
		w.buf.WriteByte(']')
	}
	w.buf.WriteString(`,"additionalProperties":false}`)
}

// fields lists the JSON properties of struct t in declaration order, with
// embedded structs flattened in place. seen guards against one name twice.
func (w *schemaWriter) fields(t reflect.Type, seen map[string]bool) []schemaField {
	if seen == nil {
		seen = map[string]bool{}
	}
	var out []schemaField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && !implementsText(ft) {
			// encoding/json promotes an untagged embedded struct's fields,
			// even when the embedded type itself is unexported.
			out = append(out, w.fields(ft, seen)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if seen[name] {
			w.fail("two fields named %q", name)
		}
		seen[name] = true
		sf := schemaField{name: name, typ: f.Type, desc: f.Tag.Get("desc")}
		for o := range strings.SplitSeq(opts, ",") {
			if o == "omitempty" || o == "omitzero" {
				sf.optional = true
			}
		}
		if e, ok := f.Tag.Lookup("enum"); ok {
			for v := range strings.SplitSeq(e, ",") {
				sf.enum = append(sf.enum, strings.TrimSpace(v))
			}
		}
		out = append(out, sf)
	}
	return out
}

func implementsText(t reflect.Type) bool {
	return t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)
}

// value writes the schema of one value of type t.
func (w *schemaWriter) value(t reflect.Type, desc string, enum []string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessageType || t.Kind() == reflect.Interface:
		w.noEnum(t, enum)
		w.buf.WriteByte('{')
		if desc != "" {
			w.buf.WriteString(`"description":`)
			w.str(desc)
		}
		w.buf.WriteByte('}')
		return
	case implementsText(t):
		w.scalar("string", desc, enum)
		return
	}
	switch t.Kind() {
	case reflect.String:
		w.scalar("string", desc, enum)
	case reflect.Bool:
		w.noEnum(t, enum)
		w.scalar("boolean", desc, nil)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.scalar("integer", desc, enum)
	case reflect.Float32, reflect.Float64:
		w.scalar("number", desc, enum)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			// encoding/json sends []byte as a base64 string.
			w.noEnum(t, enum)
			w.scalar("string", desc, nil)
			return
		}
		w.buf.WriteString(`{"type":"array"`)
		w.description(desc)
		w.buf.WriteString(`,"items":`)
		w.value(t.Elem(), "", enum)
		if t.Kind() == reflect.Array {
			n := strconv.Itoa(t.Len())
			w.buf.WriteString(`,"minItems":` + n + `,"maxItems":` + n)
		}
		w.buf.WriteByte('}')
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			w.fail("map %s: only string keys can be JSON object keys here", t)
		}
		w.noEnum(t, enum)
		w.buf.WriteString(`{"type":"object"`)
		w.description(desc)
		w.buf.WriteString(`,"additionalProperties":`)
		w.value(t.Elem(), "", nil)
		w.buf.WriteByte('}')
	case reflect.Struct:
		w.noEnum(t, enum)
		w.object(t, desc)
	default:
		w.fail("type %s has no JSON Schema", t)
	}
}

func (w *schemaWriter) noEnum(t reflect.Type, enum []string) {
	if enum != nil {
		w.fail("enum tag on %s: enums apply to strings and numbers", t)
	}
}

// scalar writes {"type":typ,"description":...,"enum":[...]}, checking that
// every enum value parses as typ.
func (w *schemaWriter) scalar(typ, desc string, enum []string) {
	w.buf.WriteString(`{"type":`)
	w.str(typ)
	w.description(desc)
	if enum != nil {
		w.buf.WriteString(`,"enum":[`)
		for i, v := range enum {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			switch typ {
			case "string":
				w.str(v)
			case "integer":
				if _, err := strconv.ParseInt(v, 10, 64); err != nil {
					w.fail("enum value %q is not an integer", v)
				}
				w.buf.WriteString(v)
			case "number":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					w.fail("enum value %q is not a number", v)
				}
				w.buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
		w.buf.WriteByte(']')
	}
	w.buf.WriteByte('}')
}

func (w *schemaWriter) description(desc string) {
	if desc != "" {
		w.buf.WriteString(`,"description":`)
		w.str(desc)
	}
}

// str writes s as a JSON string without HTML escaping, so "<" in a
// description reaches the model as written.
func (w *schemaWriter) str(s string) {
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	w.buf.Truncate(w.buf.Len() - 1)
}
