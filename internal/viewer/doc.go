// Package viewer is `copperhead watch`: a loopback HTTP server with one
// embedded page (no build step) and a WebSocket that pushes, as they happen,
// the design's schematic sheets and board as SVG (re-exported by kicad-cli
// after every change of a KiCad file), the ERC and DRC state, and the events
// of the one agent run the page may start.
//
// What it protects, each enforced here and nowhere else:
//   - reachability: it listens on 127.0.0.1 only, never a wildcard address;
//   - DNS rebinding: every request's Host must be 127.0.0.1:<port> or
//     localhost:<port>, else 403, so a page on another name that resolves to
//     loopback cannot read or drive it;
//   - cross-site requests: the WebSocket's Origin must be this server's own
//     origin, and every request that changes anything (start a run, stop
//     it) carries the per-session token embedded in the page, which another
//     origin cannot read;
//   - containment: nothing the page sends is a path. A picture is named by a
//     key the server issued (looked up in the render's own table) and a run
//     is a change request handed to the same gated agent run as `do`, whose
//     tools resolve every path inside the repository.
//
// The agent run itself is not this package's: the caller passes a Runner
// (the CLI's `do` path), and the viewer subscribes to the run's event stream
// (runs.Run.Subscribe) like the terminal renderer does. It never imports
// cli or agent.
package viewer
