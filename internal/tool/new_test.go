package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"copperhead/internal/llm"
)

type echoArgs struct {
	Text  string `json:"text" desc:"what to echo"`
	Times int    `json:"times,omitempty" desc:"how often"`
}

// TestNew: a tool built with New shows the schema llm.ToolFor derives from
// its arguments type with the trimmed description, is mutating only with
// the Mutating option, and runs its function on strictly decoded arguments.
func TestNew(t *testing.T) {
	var got []echoArgs
	echo := func(_ context.Context, _ *Session, a echoArgs) (Result, error) {
		got = append(got, a)
		return Result{Text: strings.Repeat(a.Text, max(a.Times, 1))}, nil
	}
	plain := New("echo", "\nEchoes text.\n\n", echo)
	locked := New("echo", "Echoes text.", echo, Mutating)

	want := llm.ToolFor[echoArgs]("echo", "Echoes text.")
	for _, tl := range []Tool{plain, locked} {
		sp := tl.Spec()
		if sp.Name != want.Name || sp.Description != want.Description || !bytes.Equal(sp.Schema, want.Schema) {
			t.Errorf("Spec() = %+v, want %+v", sp, want)
		}
	}
	if plain.Mutating() || !locked.Mutating() {
		t.Errorf("Mutating: plain %v, with the option %v; want false, true", plain.Mutating(), locked.Mutating())
	}

	s := &Session{}
	res, err := plain.Run(context.Background(), s, json.RawMessage(`{"text":"ab","times":2}`))
	if err != nil || res.IsError || res.Text != "abab" {
		t.Fatalf("Run = %+v, %v; want abab", res, err)
	}
	for _, bad := range []struct{ args, want string }{
		{`{"text":"x","colour":"red"}`, `invalid arguments for echo: unknown field "colour"; call it again with arguments matching its schema`},
		{`{"text":3}`, "invalid arguments for echo: cannot unmarshal number into Go struct field echoArgs.text of type string"},
	} {
		res, err := plain.Run(context.Background(), s, json.RawMessage(bad.args))
		if err != nil || !res.IsError || !strings.Contains(res.Text, bad.want) {
			t.Errorf("Run(%s) = %+v, %v; want an IsError result with %q", bad.args, res, err, bad.want)
		}
	}
	if len(got) != 1 {
		t.Errorf("the function ran %d times, want once: arguments that do not decode never reach it", len(got))
	}
}

// TestNewThroughDispatch: Dispatch hands a New tool's arguments over, and a
// mutating one stays locked until the change validates.
func TestNewThroughDispatch(t *testing.T) {
	echo := New("echo", "Echoes text.", func(_ context.Context, _ *Session, a echoArgs) (Result, error) {
		return Result{Text: a.Text}, nil
	}, Mutating)
	s := testSession(t)
	call := llm.ToolCall{Name: "echo", Args: json.RawMessage(`{"text":"hi"}`)}
	if res := Dispatch(context.Background(), s, []Tool{echo}, call); !res.IsError || !strings.Contains(res.Text, "echo is locked until validate_change passes") {
		t.Errorf("before validation: %+v", res)
	}
	s.Validated = true
	if res := Dispatch(context.Background(), s, []Tool{echo}, call); res.IsError || res.Text != "hi" {
		t.Errorf("after validation: %+v", res)
	}
}
