package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one inbound message, as the SDK's own stdio transport does
// (mcp.DefaultMaxLineLength): a client that never sends a newline cannot
// make the server buffer without end.
const maxLine = mcp.DefaultMaxLineLength

// StdioTransport is the server's stdio transport: newline-delimited
// JSON-RPC, as the SDK's, except that a line that is not a JSON-RPC message
// is answered and dropped instead of ending the connection. The SDK closes
// the session on the first undecodable frame; JSON-RPC 2.0 wants a parse
// error (-32700) for text that is not JSON and an invalid request (-32600)
// for JSON that is not a message, and the server to go on serving. Both
// answers and the SDK's own messages go through one lock, so each line on
// out is one whole message.
//
// When the client closes stdin, the requests it sent are answered before the
// SDK hears of the end (the SDK drops what is in flight when its reader
// ends): `printf '...' | copperhead mcp` gets every answer.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: out}
	w.answered = sync.NewCond(&w.mu)
	go filterLines(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: maxLine}
}

// filterLines copies the JSON-RPC messages of in to sdk, one per line, and
// answers every other non-empty line on out itself.
func filterLines(in io.Reader, sdk *io.PipeWriter, out *lockedWriter) {
	r := bufio.NewReaderSize(in, 64*1024)
	for {
		line, err := readLine(r)
		if t := bytes.TrimSpace(line); len(t) > 0 {
			reply, request := refusal(t)
			if reply != nil {
				_, _ = out.write(reply, false)
			} else {
				if request {
					out.asked()
				}
				if _, werr := sdk.Write(append(t, '\n')); werr != nil {
					return // the SDK side is closed
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
				out.drain()
			}
			sdk.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line; a line longer than maxLine is an error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a message longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// refusal is the answer to a line the SDK must not see, nil for a JSON-RPC
// message (or a batch, which the SDK answers itself); request reports a
// message that expects an answer.
func refusal(line []byte) (reply []byte, request bool) {
	if !json.Valid(line) {
		return errorLine(nil, -32700, "Parse error: the line is not JSON"), false
	}
	if line[0] == '[' {
		return nil, false
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		return errorLine(probe.ID, -32600, "Invalid Request: "+err.Error()), false
	}
	req, ok := msg.(*jsonrpc.Request)
	return nil, ok && req.IsCall()
}

func errorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 || (id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-') {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}

// lockedWriter serializes whole-message writes to the process's stdout and
// counts the requests passed to the SDK against the answers it wrote.
type lockedWriter struct {
	mu       sync.Mutex
	w        io.Writer
	answered *sync.Cond
	pending  int // requests passed to the SDK and not answered yet
}

// Write is the SDK's: one whole message per call.
func (l *lockedWriter) Write(p []byte) (int, error) { return l.write(p, isAnswer(p)) }

func (l *lockedWriter) write(p []byte, answer bool) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if answer && l.pending > 0 {
		l.pending--
		l.answered.Broadcast()
	}
	return n, err
}

func (l *lockedWriter) asked() {
	l.mu.Lock()
	l.pending++
	l.mu.Unlock()
}

// drain waits until every request passed to the SDK is answered.
func (l *lockedWriter) drain() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.pending > 0 {
		l.answered.Wait()
	}
}

// isAnswer reports whether the SDK's message p is a response (it has an id
// and no method); a batch counts each of its responses once.
func isAnswer(p []byte) bool {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p))
	if err != nil {
		return false
	}
	_, ok := msg.(*jsonrpc.Response)
	return ok
}

// Close does not close stdout: the process owns it.
func (l *lockedWriter) Close() error { return nil }
