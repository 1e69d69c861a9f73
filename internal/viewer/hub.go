package viewer

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// clientQueue is how many messages a page may fall behind before it is
// dropped (it reconnects and gets the whole state again): a page that
// stops reading must not hold the agent run's event stream.
const clientQueue = 512

// writeTimeout bounds one message's write to a page.
const writeTimeout = 10 * time.Second

// hub fans messages out to the connected pages.
type hub struct {
	mu      sync.Mutex
	clients map[*client]bool
}

type client struct {
	out  chan []byte
	done chan struct{}
	once sync.Once
}

func (c *client) close() { c.once.Do(func() { close(c.done) }) }

func newHub() *hub { return &hub{clients: map[*client]bool{}} }

// broadcastLocked queues msg for every page without ever blocking the
// sender. The caller holds h.mu while it builds the message, so messages
// are ordered against each other and against a page joining. Lock order:
// h.mu, then the server's.
func (h *hub) broadcastLocked(msg []byte) {
	for c := range h.clients {
		select {
		case c.out <- msg:
		default:
			delete(h.clients, c)
			c.close()
		}
	}
}

// join registers a page; first holds the messages it gets before any
// broadcast (the state and the run's log so far), queued under the hub's
// lock so that no broadcast slips in between.
func (h *hub) join(first func() [][]byte) *client {
	c := &client{out: make(chan []byte, clientQueue), done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range first() {
		select {
		case c.out <- m:
		default:
		}
	}
	h.clients[c] = true
	return c
}

func (h *hub) leave(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	c.close()
}

func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		delete(h.clients, c)
		c.close()
	}
}

// serveWS upgrades /ws?token=T: the Origin must be this server's own page
// (a cross-site page cannot open it), and the token the page was given.
// The socket is one-way: the page sends nothing over it; what changes
// anything goes through the token-guarded POSTs.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request, allowed map[string]bool) {
	if !originAllowed(r, allowed) {
		http.Error(w, "forbidden: foreign origin", http.StatusForbidden)
		return
	}
	if !s.tokenOK(r.URL.Query().Get("token")) {
		http.Error(w, "forbidden: missing or wrong session token", http.StatusForbidden)
		return
	}
	// The origin was checked above against the allowed hosts; the
	// library's own check (origin host equal to Host) stays on as well.
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	ctx := conn.CloseRead(r.Context())
	c := s.hub.join(func() [][]byte {
		s.mu.Lock()
		log := append([][]byte{}, s.runLog...)
		s.mu.Unlock()
		return append([][]byte{s.stateMessage()}, log...)
	})
	defer s.hub.leave(c)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.done:
			conn.Close(websocket.StatusGoingAway, "server stopping or page too slow")
			return
		case m := <-c.out:
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			err := conn.Write(wctx, websocket.MessageText, m)
			cancel()
			if err != nil {
				return
			}
		}
	}
}
