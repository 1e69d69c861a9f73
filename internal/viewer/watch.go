package viewer

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/fsnotify/fsnotify"

	"copperhead/internal/kicadcli"
)

// watchFolders is where the design's KiCad files live: the schematic's
// folder and every folder holding one of its sheets, and the board's.
func (s *Server) watchFolders() []string {
	if len(s.opts.Watch) > 0 {
		return s.opts.Watch
	}
	dirs := []string{filepath.Dir(s.opts.Schematic)}
	if files, err := kicadcli.ProjectInputs(s.opts.Schematic); err == nil {
		for _, f := range files {
			if filepath.Ext(f) == ".kicad_sch" {
				dirs = append(dirs, filepath.Dir(f))
			}
		}
	}
	if s.opts.Board != "" {
		dirs = append(dirs, filepath.Dir(s.opts.Board))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// watchFiles kicks the worker whenever a sheet or the board is written,
// created, renamed into place (an atomic write) or removed, by anyone: an
// edit in another terminal, KiCad itself, a run. The worker's content hash
// drops writes that changed nothing.
func (s *Server) watchFiles(ctx context.Context, wg *sync.WaitGroup) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("file watcher: %w", err)
	}
	for _, d := range s.watchFolders() {
		if err := w.Add(d); err != nil {
			w.Close()
			return fmt.Errorf("watch %s: %w", d, err)
		}
	}
	wg.Go(func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				switch filepath.Ext(ev.Name) {
				case ".kicad_sch", ".kicad_pcb":
					s.kick()
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				s.logf("file watcher: %v", err)
			}
		}
	})
	return nil
}
